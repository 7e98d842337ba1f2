import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VacationFigures } from '../../commands/types.ts';
import { Days360, companyContractOf, toDecimal2 } from '../../domain/index.ts';
import { actorFor } from '../../app/actor.ts';
import { PERMISSION_DELETE, refusalWords } from '../../app/refusals.ts';
import { VacationUseCases, type Call } from '../../app/vacations.ts';
import { Fields } from '../../app/fields.ts';
import { BALANCE_PROBLEM_MESSAGES } from '../../app/rule-messages.ts';
import { parseCreateInput, parseInterruptInput } from '../../app/vacation-input.ts';
import { vacationBalance, type BalanceProblem } from '../../projections/availability/balance.ts';
import type { InterruptionReason } from '../../events/types.ts';
import type { VacationView } from '../../projections/index.ts';
import type { User } from '../../reference/repository.ts';
import type { WorkerFileRow } from '../../reference/worker-files.ts';
import { bogotaTime, dateField, pilaCode, days, fromDayMonthYear, html, pesos, shortDate, shortMonth, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { searchWorkers, subgerencias } from '../../reference/search.ts';
import { stateBadge, displayStateOf, type StateFacts } from './display-state.ts';
import { periodsSection, registerLinks, settlementSection } from './worker-law.ts';

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

/** Workers a search lists at most. */
const SEARCH_LIMIT = 20;

export const canDelete = (user: User) => user.permissions.includes(PERMISSION_DELETE);

/** A read model's record as the state functions take it. */
const facts = (v: VacationView): StateFacts => ({ ...v, deleted: v.status === 'deleted' });

/** Who acts from the panel: the signed-in person, through no API key, logged on the request. */
export const panelCall = (req: FastifyRequest, user: User): Call => ({
  actor: actorFor({ user, source: 'panel', requestId: req.id }),
  user,
  log: req.log,
});

const PROBLEM_TEXT = (p: BalanceProblem) =>
  p.kind === 'no_contracts'
    ? 'El trabajador no tiene contratos vigentes hoy: no acumula días.'
    : p.kind === 'no_params'
      ? `El contrato empresa ${p.company.name} no tiene parametrización de vacaciones.`
      : BALANCE_PROBLEM_MESSAGES[p.kind];

export interface FormState {
  values: Record<string, string>;
  preview?: VacationFigures;
  errors?: string[];
}

/** The records whose days not enjoyed a new record may book (CST art. 188), for the form's list. */
const continuable = (list: VacationView[]) => list.filter((v) => v.status === 'live' && v.interruptedOn && !v.compensated);

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

function previewBlock(f: VacationFigures): Html {
  return html`<section aria-labelledby="preview-title" class="card" id="vista-previa">
  <h3 id="preview-title">Vista previa: las vacaciones cumplen todas las reglas</h3>
  <dl class="facts">
    <dt>Del</dt><dd>${shortDate(f.startDate)} al ${shortDate(f.endDate)}</dd>
    <dt>Días</dt><dd>${f.days} hábiles, ${f.calendarDays} calendario</dd>
    <dt>Valor</dt><dd>${pesos(f.totalValue)} (salario ${pesos(f.salary)})</dd>
    <dt>Días disponibles hoy</dt><dd>${dayCount(f.availableUnits)} de ${dayCount(f.accruedUnits)} causados</dd>
  </dl>
  ${amortizationTable(f.amortizations, 'Amortización prevista')}
  <p class="hint">Nada se ha guardado todavía: use «Registrar» para guardarlas.</p>
</section>`;
}

function amortizationTable(rows: { periodo: string; diasHabiles: number; diasCalendario: number; valor: number }[], caption: string): Html {
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

const MORE_HITS = 'Hay más trabajadores que coinciden: escriba más del documento o del nombre para acotar la búsqueda.';

/** Reasons an interruption may give (CST art. 188), as the interface names them, with their labels. */
const INTERRUPTION_LABELS: Record<InterruptionReason, string> = {
  incapacidad: 'Incapacidad',
  licencia: 'Licencia',
  calamidad: 'Calamidad doméstica',
  'necesidad del servicio': 'Necesidad del servicio',
  otro: 'Otro',
};

/** A record's days as the panel's sentences name them: «del 17 nov 2026 al 24 nov 2026». */
export const fromTo = (v: { startDate: string; endDate: string }) => `del ${shortDate(v.startDate)} al ${shortDate(v.endDate)}`;

/** An approved, enjoyed vacation in course on `today`: the one kind that may be interrupted. */
const interruptible = (v: VacationView, today: string) =>
  v.status === 'live' && v.approved && !v.compensated && !v.interruptedOn && v.startDate <= today && today <= v.endDate;

function timeline(list: VacationView[], user: User, doc: string, csrf: string, today: string): Html {
  if (list.length === 0) return html`<p>El trabajador no tiene vacaciones registradas.</p>`;
  const ordered = [...list].sort((a, b) => b.startDate.localeCompare(a.startDate) || b.recordId - a.recordId);
  const live = ordered.filter((v) => v.status === 'live');
  const gone = ordered.filter((v) => v.status !== 'live');
  const items = (records: VacationView[], label: string) =>
    html`<ol class="timeline" aria-label="${label}">${records.map((v) => timelineItem(v, user, doc, csrf, today))}</ol>`;
  return html`${live.length ? items(live, 'Vacaciones vigentes, de la más reciente a la más antigua') : html`<p>El trabajador no tiene vacaciones vigentes.</p>`}
${
  gone.length
    ? html`<details class="gone-records"><summary>Reemplazadas o eliminadas (${gone.length})</summary>
${items(gone, 'Vacaciones reemplazadas o eliminadas')}</details>`
    : ''
}`;
}

function timelineItem(v: VacationView, user: User, doc: string, csrf: string, today: string): Html {
  const state = displayStateOf(facts(v));
  const live = v.status === 'live';
  return html`<li id="${v.codigoPila}" class="${live ? '' : 'gone'}">
  <h3>${shortDate(v.startDate)} – ${shortDate(v.endDate)} ${stateBadge(facts(v))}</h3>
  <dl class="facts">
    <dt>Código PILA</dt><dd>${pilaCode(v.codigoPila)}</dd>
    <dt>Días</dt><dd>${v.businessDays} hábiles, ${v.calendarDays} calendario${v.compensated ? ', compensadas en dinero' : ''}${
      v.advance ? ', anticipadas' : ''
    }</dd>
    <dt>Valor</dt><dd>${pesos(v.totalValue)}</dd>
    ${v.createdAt ? html`<dt>Registrada</dt><dd>${bogotaTime(v.createdAt)}</dd>` : ''}
    ${v.approvedAt ? html`<dt>Aprobada</dt><dd>${bogotaTime(v.approvedAt)}</dd>` : ''}
    ${v.deletedAt ? html`<dt>${state === 'reemplazada' ? 'Reemplazada' : 'Eliminada'}</dt><dd>${bogotaTime(v.deletedAt)}</dd>` : ''}
    ${
      v.interruptedOn
        ? html`<dt>Interrumpida</dt><dd>desde el ${shortDate(v.interruptedOn)} (${v.interruptionReason ?? 'sin motivo'});
          los días no disfrutados volvieron al saldo</dd>`
        : ''
    }
    ${v.continues ? html`<dt>Continúa</dt><dd><a href="${url`#${v.continues}`}"><code>${v.continues}</code></a></dd>` : ''}
    ${v.replaces ? html`<dt>Reemplaza a</dt><dd>${pilaCode(v.replaces)}</dd>` : ''}
    ${v.replacedBy ? html`<dt>Reemplazada por</dt><dd><a href="${url`#${v.replacedBy}`}"><code>${v.replacedBy}</code></a></dd>` : ''}
  </dl>
  ${amortizationTable(v.amortizations, `Amortizaciones de las vacaciones ${fromTo(v)}`)}
  <div class="actions">
    ${
      live && !v.approved
        ? html`<form method="post" action="${url`/panel/vacaciones/${v.codigoPila}/aprobar`}" class="inline">
        <input type="hidden" name="_csrf" value="${csrf}">
        <button type="submit" aria-label="Aprobar las vacaciones ${fromTo(v)}">Aprobar</button>
      </form>`
        : ''
    }
    ${
      interruptible(v, today)
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/interrumpir`}"
            aria-label="Interrumpir las vacaciones ${fromTo(v)}">Interrumpir…</a>`
        : ''
    }
    ${
      live && !v.approved && canDelete(user)
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/eliminar`}"
            aria-label="Eliminar las vacaciones ${fromTo(v)}">Eliminar…</a>`
        : ''
    }
    ${
      live && !v.approved && !v.interruptedOn
        ? html`<a class="button secondary" href="${url`/panel/vacaciones/${v.codigoPila}/editar`}"
            aria-label="Editar o cambiar de fecha las vacaciones ${fromTo(v)}">Editar…</a>`
        : ''
    }
    <a href="${url`/panel/auditoria?documento=${doc}&codigo=${v.codigoPila}`}">Ver su auditoría</a>
  </div>
</li>`;
}

async function contractsTable(ctx: PanelContext, file: WorkerFileRow | null): Promise<Html> {
  if (!file || file.contracts.length === 0) return html`<p>El trabajador no tiene contratos registrados.</p>`;
  const names = new Map((await subgerencias(ctx.deps.db)).map((s) => [s.id, s.name]));
  return html`<table>
  <caption>Contratos</caption>
  <thead><tr>
    <th scope="col">Contrato</th><th scope="col">Subgerencia</th><th scope="col">Contrato empresa</th><th scope="col">Desde</th>
    <th scope="col">Hasta</th><th scope="col">Estado</th><th scope="col" class="num">Salario base</th>
    <th scope="col" class="num">Riesgo</th>
  </tr></thead>
  <tbody>${file.contracts.map((c) => {
    const company = companyContractOf(file, c);
    return html`<tr><td>${c.id}${c.additional ? ' (adicional)' : ''}</td><td>${names.get(c.subgerenciaId) ?? c.subgerenciaId}</td>
      <td>${company?.name ?? '—'}</td><td>${c.startDate ? shortDate(c.startDate) : '—'}</td>
      <td>${c.endDate ? shortDate(c.endDate) : 'sin fecha'}</td><td>${c.settled ? 'liquidado' : 'vigente'}</td>
      <td class="num">${pesos(c.baseSalary)}</td><td class="num">${c.riskLevel ?? '—'}</td></tr>`;
  })}</tbody>
</table>`;
}

/** Trabajador: search, a worker's contracts, balance and vacations, and the form to book more. */
export function workerPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const useCases = new VacationUseCases(deps);

  app.get('/trabajador', async (req, reply) => {
    const q = String((req.query as Record<string, unknown>).q ?? '')
      .trim()
      .slice(0, 100);
    let results: Html = html``;
    if (q !== '') {
      const { hits, more } = await searchWorkers(deps.db, q, SEARCH_LIMIT);
      const caption = more ? `Los primeros ${hits.length} resultados` : `${hits.length} resultado${hits.length === 1 ? '' : 's'}`;
      // A whole document typed: straight to that worker.
      if (hits[0]?.documentNumber === q) return reply.redirect(url`/panel/trabajador/${q}`, 303);
      results =
        hits.length === 0
          ? html`<p role="status">Ningún trabajador tiene un documento ni un nombre que empiece así.</p>`
          : html`<table>
  <caption>${caption} para «${q}»</caption>
  <thead><tr><th scope="col">Documento</th><th scope="col">Nombre</th></tr></thead>
  <tbody>${hits.map(
    (w) => html`<tr>
    <td>${w.documentType} ${w.documentNumber}</td>
    <td><a href="${url`/panel/trabajador/${w.documentNumber}`}">${w.lastNames}, ${w.firstNames}</a></td>
  </tr>`,
  )}</tbody>
</table>
${more ? html`<p role="status">${MORE_HITS}</p>` : ''}`;
    }
    return ctx.render(req, reply, { title: 'Trabajador', section: 'trabajador', body: html`${searchForm(q)}${results}` });
  });

  app.get('/trabajador/:documento', async (req, reply) => renderWorker(req, reply, { values: {} }));

  async function renderWorker(req: FastifyRequest, reply: FastifyReply, form: FormState, status = 200) {
    const doc = (req.params as { documento: string }).documento;
    // The per-worker read model's row: the worker, contracts, company rules and payroll in one read.
    const file = doc.length <= 40 ? await deps.reference.workerFileByDocument(doc) : null;
    if (!file) {
      return ctx.render(req, reply, {
        title: 'Trabajador',
        section: 'trabajador',
        status: 404,
        flash: { kind: 'error', text: `No hay un trabajador con documento ${doc}.` },
        body: searchForm(doc),
      });
    }
    const { worker } = file;
    return ctx.render(req, reply, {
      title: `${worker.firstNames} ${worker.lastNames}`,
      section: 'trabajador',
      status,
      body: await workerBody(req, reply, file, form),
    });
  }

  async function workerBody(req: FastifyRequest, reply: FastifyReply, file: WorkerFileRow, form: FormState): Promise<Html> {
    const { worker } = file;
    const user = req.panelUser!;
    const today = deps.today();
    const query = req.query as Record<string, unknown>;
    const [balance, list, contracts, periods, settlement] = await Promise.all([
      vacationBalance(file, today, () => deps.readSide.liveRecordsOf(worker.id)),
      deps.readSide.vacationsOfWorker(worker.id, { includeDeleted: true }),
      contractsTable(ctx, file),
      periodsSection(ctx, file, query),
      settlementSection(ctx, file, query),
    ]);
    const csrf = ctx.csrf(reply);
    const figures = balance.ok
      ? html`<div class="cards">
  <div class="card"><span class="value">${balance.balance.worked}</span> días laborados en nómina</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.accrued))}</span>
    días causados (${balance.balance.annualDays} por año)</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.taken))}</span> días tomados</div>
  <div class="card"><span class="value">${days(toDecimal2(balance.balance.available))}</span> días disponibles</div>
</div>`
      : html`<p class="flash flash-error">${PROBLEM_TEXT(balance.problem)}</p>`;
    return html`<p class="muted">${worker.documentType} ${worker.documentNumber} · al ${shortDate(today)} ·
  <a href="${url`/panel/auditoria?documento=${worker.documentNumber}`}">Auditoría del trabajador</a></p>
<h2>Saldo de vacaciones</h2>
${figures}
${contracts}
${registerLinks(worker.documentNumber)}
${periods}
${settlement}
<h2 id="form-title">Calcular y registrar vacaciones</h2>
${
  form.errors?.length
    ? html`<div class="flash flash-error" role="alert" id="errores">
        <p>No se pueden registrar estas vacaciones:</p><ul>${form.errors.map((e) => html`<li>${e}</li>`)}</ul>
      </div>`
    : ''
}
${form.preview ? previewBlock(form.preview) : ''}
${
  !balance.ok && balance.problem.kind === 'no_contracts'
    ? html`<p>No se pueden registrar vacaciones: ningún contrato del trabajador está vigente hoy.</p>`
    : vacationForm(url`/panel/trabajador/${worker.documentNumber}/vacaciones`, csrf, form, continuable(list))
}
<h2>Vacaciones</h2>
${timeline(list, user, worker.documentNumber, csrf, today)}`;
  }

  app.post('/trabajador/:documento/vacaciones', async (req, reply) => {
    const doc = (req.params as { documento: string }).documento;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const user = req.panelUser!;
    const { values, parsed } = readVacationForm(body, doc, user);
    if (!parsed.ok) return renderWorker(req, reply, { values, errors: parsed.errors }, 400);
    const { documentNumber, request } = parsed.value;
    if (body.accion !== 'registrar') {
      const r = await useCases.calculate(documentNumber, request);
      if (!r.ok) {
        const w = refusalWords(r, 'calculate', { documentNumber });
        return renderWorker(req, reply, { values, errors: w.text }, w.status);
      }
      return renderWorker(req, reply, { values, preview: r.value });
    }
    const r = await useCases.create(panelCall(req, user), documentNumber, request);
    if (!r.ok) {
      const w = refusalWords(r, 'create', { documentNumber });
      return renderWorker(req, reply, { values, errors: w.text }, w.status);
    }
    const { record } = r.value;
    ctx.flash(req, {
      kind: 'ok',
      text: `Vacaciones registradas ${fromTo(record)}, pendientes de aprobación. Código ${record.codigoPila}.`,
    });
    return reply.redirect(url`/panel/trabajador/${doc}#${record.codigoPila}`, 303);
  });

  /** The record a code names, and its worker's document, for the approve and delete forms. */
  async function recordOf(code: string): Promise<VacationView | null> {
    return code.length <= 200 && !code.includes('\u0000') ? await deps.readSide.vacationByCode(code) : null;
  }
  const backTo = (v: VacationView | null) => (v ? url`/panel/trabajador/${v.documentNumber}#${v.codigoPila}` : '/panel/trabajador');
  /** Where a form asked to go back to: a page of the panel's own (the home page approves too), else the record's worker. */
  const backFrom = (req: FastifyRequest, v: VacationView | null) => {
    const asked = ((req.body ?? {}) as Record<string, unknown>).volver;
    return typeof asked === 'string' && /^\/panel(\/[a-z]+)*\/?(\?[A-Za-z0-9=&%._-]*)?$/.test(asked) ? asked : backTo(v);
  };

  app.post('/vacaciones/:codigo/aprobar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    const r = await useCases.approve(panelCall(req, user), code);
    if (!r.ok) ctx.flash(req, { kind: 'error', text: refusalWords(r, 'approve', { code }).text.join(' ') });
    else ctx.flash(req, { kind: 'ok', text: `Vacaciones ${code} aprobadas.` });
    return reply.redirect(backFrom(req, record), 303);
  });

  // CST art. 188: the first day not enjoyed and the reason; the command judges the rest.
  app.get('/vacaciones/:codigo/interrumpir', async (req, reply) => {
    const record = await recordOf((req.params as { codigo: string }).codigo);
    if (!record || record.status !== 'live') {
      return ctx.render(req, reply, {
        title: 'Interrumpir vacaciones',
        section: 'trabajador',
        status: 404,
        flash: { kind: 'error', text: 'No existe un registro de vacaciones vigente con ese código.' },
        body: html`<p><a href="/panel/trabajador">Buscar un trabajador</a></p>`,
      });
    }
    return ctx.render(req, reply, {
      title: 'Interrumpir vacaciones',
      section: 'trabajador',
      body: html`<p>Interrumpir las vacaciones <code>${record.codigoPila}</code> ${fromTo(record)} (${record.businessDays} días hábiles)
  del trabajador con documento ${record.documentNumber}.</p>
<p>El registro conserva los días hábiles disfrutados antes de la fecha indicada; los demás vuelven al saldo del trabajador,
  que puede tomarlos después en un registro nuevo.</p>
<form method="post" action="${url`/panel/vacaciones/${record.codigoPila}/interrumpir`}" novalidate>
  <input type="hidden" name="_csrf" value="${ctx.csrf(reply)}">
  ${dateField({
    id: 'fechaInterrupcion',
    label: 'Primer día no disfrutado',
    value: deps.today(),
    hint: `Un día hábil ${fromTo(record)}, ambos incluidos: el primero si no disfrutó ninguno. Día, mes y año (07/12/2026).`,
  })}
  <div class="field"><label for="motivo">Motivo</label>
    <select id="motivo" name="motivo" required>${Object.entries(INTERRUPTION_LABELS).map(
      ([value, label]) => html`<option value="${value}">${label}</option>`,
    )}</select></div>
  <div class="actions">
    <button type="submit">Interrumpir</button>
    <a class="button secondary" href="${backTo(record)}">No, volver</a>
  </div>
</form>`,
    });
  });

  app.post('/vacaciones/:codigo/interrumpir', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const parsed = parseInterruptInput(
      new Fields({
        fechaInterrupcion: typeof body.fechaInterrupcion === 'string' ? fromDayMonthYear(body.fechaInterrupcion) : body.fechaInterrupcion,
        motivo: body.motivo,
        codigoPila: code,
        emailUserResponsable: user.email,
      }),
    );
    if (!parsed.ok) {
      ctx.flash(req, { kind: 'error', text: Object.values(parsed.errors).join(' ') });
      return reply.redirect(backTo(record), 303);
    }
    const { date, reason } = parsed.value;
    const r = await useCases.interrupt(panelCall(req, user), code, { date, reason });
    if (!r.ok) ctx.flash(req, { kind: 'error', text: refusalWords(r, 'interrupt', { code }).text.join(' ') });
    else {
      ctx.flash(req, {
        kind: 'ok',
        text: `Vacaciones ${code} interrumpidas el ${shortDate(date)}: ${r.value.record.daysReturned} días hábiles volvieron al saldo.`,
      });
    }
    return reply.redirect(backTo(record), 303);
  });

  app.get('/vacaciones/:codigo/eliminar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    if (!record || record.status !== 'live') {
      return ctx.render(req, reply, {
        title: 'Eliminar vacaciones',
        section: 'trabajador',
        status: 404,
        flash: { kind: 'error', text: 'No existe un registro de vacaciones vigente con ese código.' },
        body: html`<p><a href="/panel/trabajador">Buscar un trabajador</a></p>`,
      });
    }
    if (!canDelete(user)) {
      return ctx.render(req, reply, {
        title: 'Eliminar vacaciones',
        section: 'trabajador',
        status: 403,
        flash: { kind: 'error', text: 'Su usuario no tiene el permiso para eliminar vacaciones.' },
        body: html`<p><a href="${backTo(record)}">Volver al trabajador</a></p>`,
      });
    }
    return ctx.render(req, reply, {
      title: 'Eliminar vacaciones',
      section: 'trabajador',
      body: html`<p>¿Eliminar las vacaciones <code>${record.codigoPila}</code> ${fromTo(record)} (${record.businessDays} días hábiles)
  del trabajador con documento ${record.documentNumber}?</p>
<p>La eliminación queda en la auditoría con su nombre y no se puede deshacer.</p>
<form method="post" action="${url`/panel/vacaciones/${record.codigoPila}/eliminar`}" class="actions">
  <input type="hidden" name="_csrf" value="${ctx.csrf(reply)}">
  <button type="submit" class="danger">Sí, eliminar</button>
  <a class="button secondary" href="${backTo(record)}">No, volver</a>
</form>`,
    });
  });

  app.post('/vacaciones/:codigo/eliminar', async (req, reply) => {
    const code = (req.params as { codigo: string }).codigo;
    const user = req.panelUser!;
    const record = await recordOf(code);
    const r = await useCases.delete(panelCall(req, user), code);
    if (!r.ok) ctx.flash(req, { kind: 'error', text: refusalWords(r, 'delete', { code }).text.join(' ') });
    else ctx.flash(req, { kind: 'ok', text: `Vacaciones ${code} eliminadas.` });
    return reply.redirect(backTo(record), 303);
  });
}

function searchForm(q: string): Html {
  return html`<form method="get" action="/panel/trabajador" class="row" role="search" novalidate>
  <div class="field"><label for="q">Documento o nombre</label>
    <input id="q" name="q" type="search" value="${q}" required maxlength="100" aria-describedby="q-hint">
    <span class="hint" id="q-hint">El número de documento o su comienzo, o el comienzo de nombres o apellidos.</span></div>
  <div><button type="submit">Buscar</button></div>
</form>`;
}
