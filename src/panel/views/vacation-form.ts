import type { VacationFigures } from '../../app/ports.ts';
import { Days360, toDecimal2 } from '../../domain/index.ts';
import { Fields } from '../../app/fields.ts';
import { parseCreateInput } from '../../app/vacation-input.ts';
import type { VacationView } from '../../projections/index.ts';
import type { User } from '../../reference/repository.ts';
import { bookingNotices } from '../../domain/index.ts';
import { noticeBody } from '../../app/notices.ts';
import { dateField, days, fromDayMonthYear, html, inPanelDates, pesos, shortDate, shortMonth, type Html } from '../html.ts';

/** The form's fields, named as in the JSON interface so both validate the same way. */
const FORM_FIELDS = [
  'vacFechaInicio',
  'vacDiasVacaciones',
  'vacPagado',
  'vacLaboraSabado',
  'vacCompensado',
  'vacSeguridadEnNomina',
  'codigoPilaInterrumpido',
] as const;
const LABELS: Record<string, string> = {
  vacFechaInicio: 'Fecha de inicio',
  vacDiasVacaciones: 'Días hábiles',
  vacPagado: 'Anticipadas',
  vacLaboraSabado: 'Labora los sábados',
  vacCompensado: 'Compensadas en dinero',
  vacSeguridadEnNomina: 'Seguridad social en nómina',
  codigoPilaInterrumpido: 'Continúa las vacaciones interrumpidas',
};
const labelled = (message: string) => message.replace(/\b(vac[A-Za-z]+)\b/g, (name) => LABELS[name] ?? name);

/**
 * The booking form's fields as posted (kept to show again) and as the interface's create input:
 * the same validation as the JSON interface's, the start date read as day, month and year.
 */
export function readVacationForm(body: Record<string, unknown>, doc: string, user: User) {
  const values: Record<string, string> = {};
  for (const name of FORM_FIELDS) if (typeof body[name] === 'string' && body[name] !== '') values[name] = body[name] as string;
  const start = values.vacFechaInicio === undefined ? {} : { vacFechaInicio: fromDayMonthYear(values.vacFechaInicio) };
  const r = parseCreateInput(new Fields({ ...values, ...start, documentoAsociado: doc, emailUserResponsable: user.email }));
  if (r.ok) return { values, parsed: r };
  const errors = Array.isArray(r.errors) ? r.errors : Object.values(r.errors);
  return { values, parsed: { ok: false as const, errors: errors.map(labelled) } };
}

export interface FormState {
  values: Record<string, string>;
  preview?: VacationFigures;
  errors?: string[];
}

/** The booking form; the edit form is the same one, posted to the record's address, without the continuation. */
export function vacationForm(action: string, csrf: string, state: FormState, interrupted: VacationView[] = [], save?: string): Html {
  const v = state.values;
  const checked = (name: string) => (v[name] === '1' ? html` checked` : '');
  const ss = v.vacSeguridadEnNomina ?? '';
  const cont = v.codigoPilaInterrumpido ?? '';
  return html`<form method="post" action="${action}" class="stack" aria-labelledby="form-title" novalidate>
  <input type="hidden" name="_csrf" value="${csrf}">
  <div class="row">
    ${dateField({ id: 'vacFechaInicio', label: 'Fecha de inicio', value: v.vacFechaInicio ?? '' })}
    <div class="field"><label for="vacDiasVacaciones">Días hábiles</label>
      <input id="vacDiasVacaciones" name="vacDiasVacaciones" type="number" min="1" max="360" required
        value="${v.vacDiasVacaciones ?? ''}"></div>
    <div class="field"><label for="vacSeguridadEnNomina">Seguridad social en nómina</label>
      <select id="vacSeguridadEnNomina" name="vacSeguridadEnNomina">
        <option value=""${ss === '' ? html` selected` : ''}>Sin indicar</option>
        <option value="1"${ss === '1' ? html` selected` : ''}>Sí</option>
        <option value="0"${ss === '0' ? html` selected` : ''}>No</option>
      </select></div>
  </div>
  ${
    interrupted.length
      ? html`<div class="field"><label for="codigoPilaInterrumpido">Continúa las vacaciones interrumpidas</label>
    <select id="codigoPilaInterrumpido" name="codigoPilaInterrumpido" aria-describedby="cont-hint">
      <option value=""${cont === '' ? html` selected` : ''}>No, son vacaciones nuevas</option>
      ${interrupted.map(
        (r) =>
          html`<option value="${r.codigoPila}"${cont === r.codigoPila ? html` selected` : ''}>Las ${fromTo(r)}, interrumpidas el ${shortDate(
            r.interruptedOn!,
          )}</option>`,
      )}
    </select>
    <span class="hint" id="cont-hint">Para tomar los días que una interrupción devolvió al saldo.</span></div>`
      : ''
  }
  <div class="row">
    <label class="check"><input type="checkbox" name="vacPagado" value="1"${checked('vacPagado')}> Anticipadas</label>
    <label class="check"><input type="checkbox" name="vacLaboraSabado" value="1"${checked('vacLaboraSabado')}> Labora los sábados</label>
    <label class="check"><input type="checkbox" name="vacCompensado" value="1"${checked('vacCompensado')}> Compensadas en dinero</label>
  </div>
  <div class="actions">
    ${
      save
        ? html`<button type="submit" name="accion" value="registrar">${save}</button>`
        : html`<button type="submit" name="accion" value="calcular" class="secondary">Calcular</button>
    <button type="submit" name="accion" value="registrar">Registrar</button>`
    }
  </div>
</form>`;
}

/** A count of days kept in 360ths of a day, as the panel writes it. */
const dayCount = (units: number) => days(toDecimal2(Days360.fromUnits(units)));

/** The preview of a calculation, with the law's notices the booking would carry on `today`. */
export function previewBlock(f: VacationFigures, today: string): Html {
  const notices = bookingNotices(f.startDate, today);
  return html`<section aria-labelledby="preview-title" class="card" id="vista-previa">
  <h3 id="preview-title">Vista previa: las vacaciones cumplen todas las reglas</h3>
  ${
    notices.length === 0
      ? ''
      : html`<div class="flash flash-warning" role="status" id="avisos"><p>Puede registrarlas, pero tenga en cuenta:</p><ul>${notices.map(
          (n) => html`<li>${inPanelDates(noticeBody(n).mensaje)}.</li>`,
        )}</ul></div>`
  }
  <dl class="facts">
    <dt>Del</dt><dd>${shortDate(f.startDate)} al ${shortDate(f.endDate)}</dd>
    <dt>Días</dt><dd>${f.businessDays} hábiles, ${f.calendarDays} calendario</dd>
    <dt>Valor</dt><dd>${pesos(f.totalValue)} (salario ${pesos(f.salary)})</dd>
    <dt>Días disponibles hoy</dt><dd>${dayCount(f.availableUnits)} de ${dayCount(f.accruedUnits)} causados</dd>
  </dl>
  ${amortizationTable(f.amortizations, 'Amortización prevista')}
  <p class="hint">Nada se ha guardado todavía: use «Registrar» para guardarlas.</p>
</section>`;
}

export function amortizationTable(
  rows: { periodo: string; diasHabiles: number; diasCalendario: number; valor: number }[],
  caption: string,
): Html {
  if (rows.length === 0) return html``;
  return html`<table>
  <caption>${caption}</caption>
  <thead><tr>
    <th scope="col">Periodo</th><th scope="col" class="num">Días hábiles</th><th scope="col" class="num">Días calendario</th>
    <th scope="col" class="num">Valor</th>
  </tr></thead>
  <tbody>${rows.map(
    (a) => html`<tr>
    <td>${/^\d{4}-\d{2}$/.test(a.periodo) ? shortMonth(a.periodo) : a.periodo}</td><td class="num">${a.diasHabiles}</td><td class="num">${a.diasCalendario}</td><td class="num">${pesos(a.valor)}</td>
  </tr>`,
  )}</tbody>
</table>`;
}

/** A record's days as the panel's sentences name them: «del 17 nov 2026 al 24 nov 2026». */
export const fromTo = (v: { startDate: string; endDate: string }) => `del ${shortDate(v.startDate)} al ${shortDate(v.endDate)}`;
