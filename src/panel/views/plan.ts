import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NEED_TEXT, planBody, planYears } from '../../app/plan.ts';
import { noticesField } from '../../app/notices.ts';
import { PlanBookingUseCases, lineKey, lineReasons, parsePlanLines, planBookedBody, planBookingRefusal } from '../../app/plan-booking.ts';
import { annualPlan } from '../../projections/reports/plan.ts';
import { subgerencias } from '../../reference/search.ts';
import { panelCall } from '../call.ts';
import { count, dayMonthYear, fromDayMonthYear, html, inPanelDates, shortDate, url } from '../html.ts';
import type { PanelContext } from '../context.ts';

/** Rows of the workers left out shown at most; the API gives them all. */
const SHOWN_LEFT_OUT = 200;

const NEED_LABEL = { prescribe: 'Prescriben', acumula: 'Acumula', pendiente: 'Pendientes' } as const;

const asList = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v]).map((x) => (typeof x === 'string' ? x.trim() : ''));

/** The plan form's lines as posted: one document, start and days each, in the order of the table. */
function postedLines(body: Record<string, unknown>) {
  const docs = asList(body.numeroDocumento);
  const starts = asList(body.vacFechaInicio);
  const days = asList(body.vacDiasVacaciones);
  return docs.map((doc, i) => ({ doc, start: starts[i] ?? '', days: days[i] ?? '' }));
}

/**
 * A «Revisar» of the Plan anual posts the whole plan's form to the worker's page: that worker's
 * line, with the start as HR left it, is the booking form's values. Any other form passes as it came.
 */
export function planLineOf(body: Record<string, unknown>, documentNumber: string): Record<string, unknown> {
  if (!Array.isArray(body.numeroDocumento)) return body;
  const line = postedLines(body).find((l) => l.doc === documentNumber);
  return line ? { ...body, vacFechaInicio: line.start, vacDiasVacaciones: line.days } : body;
}

/**
 * The form's first submit button, disabled: Enter in a start field then submits nothing, since
 * which line to review, or the whole plan, is for the person to click.
 */
const NO_IMPLICIT_SUBMIT = html`<button type="submit" disabled hidden></button>`;

const FIELD_LABEL: Record<string, string> = {
  numeroDocumento: 'Documento',
  vacFechaInicio: 'Fecha de inicio',
  vacDiasVacaciones: 'Días hábiles',
};
/** An interface's message as a person reads it here: fields by their labels, a line by its row (from 1). */
const labelled = (text: string) =>
  text
    .replace(/\blineas\[(\d+)\]/g, (_, i: string) => `la fila ${Number(i) + 1}`)
    .replace(/\b(numeroDocumento|vacFechaInicio|vacDiasVacaciones)\b/g, (n) => FIELD_LABEL[n] ?? n);

/** What the page shows after a booking that wrote nothing: why, line by line, with the starts as HR left them. */
interface Refused {
  intro: string;
  /** Problems by the line's document number ('' for the plan as a whole). */
  problems: { doc: string; text: string }[];
  starts: Map<string, string>;
  status: number;
  /** The lines can be booked, but the law's notices apply: they are shown, and booking asks to be confirmed. */
  confirm?: boolean;
}

/**
 * Plan anual: the year's proposed vacations of a subgerencia, from the same planner as the API.
 * HR may move any start: «Revisar» previews one line on the worker's page (booked there as any
 * other request); «Reservar el plan» books every line shown at once, all or nothing.
 */
export function planPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const booking = new PlanBookingUseCases(deps);

  async function planPage(req: FastifyRequest, reply: FastifyReply, asked: { year: unknown; unit: unknown }, refused?: Refused) {
    const scope = ctx.unitsOf(req);
    const units = (await subgerencias(deps.db)).filter((u) => scope === null || scope.includes(u.id));
    const today = deps.today();
    const years = planYears(today);
    const askedYear = Number(asked.year);
    const year = years.includes(askedYear) ? askedYear : years.at(-1)!;
    const unit = units.find((u) => u.id === asked.unit) ?? units[0];
    const choose = html`<form method="get" action="/panel/plan" class="row filters" role="search">
  <div class="field"><label for="subgerencia">Subgerencia</label>
    <select id="subgerencia" name="subgerencia">${units.map(
      (u) => html`<option value="${u.id}"${u.id === unit?.id ? html` selected` : ''}>${u.name}</option>`,
    )}</select></div>
  <div class="field"><label for="anio">Año</label>
    <select id="anio" name="anio">${years.map((y) => html`<option value="${y}"${y === year ? html` selected` : ''}>${y}</option>`)}</select></div>
  <div><button type="submit">Ver el plan</button></div>
</form>`;
    if (!unit) {
      return ctx.render(req, reply, { title: 'Plan anual', section: 'plan', body: html`${choose}<p>No hay subgerencias que ver.</p>` });
    }
    const plan = await deps.readSide.fresh(() => annualPlan(deps.db, { year, subgerenciaIds: [unit.id], today, calendar: deps.calendar }));
    const b = planBody(plan, [unit.id]);
    const mayWrite = ctx.may(req, 'write');
    const csrf = ctx.csrf(reply);
    const leftOut = b.sinColocar.slice(0, SHOWN_LEFT_OUT);
    const names = new Map(b.lineas.map((l) => [l.documentoAsociado, l.nombre]));
    const who = (doc: string) => (names.has(doc) ? `${names.get(doc)} (${doc})` : doc);
    const startOf = (l: (typeof b.lineas)[number]) => refused?.starts.get(l.documentoAsociado) ?? dayMonthYear(l.vacFechaInicio);
    const table = html`<div class="scroll"><table>
  <caption>Plan de ${unit.name} en ${year}</caption>
  <thead><tr><th scope="col">Trabajador</th><th scope="col">Prioridad</th><th scope="col">Hasta</th>
    <th scope="col" class="num">Días hábiles</th><th scope="col">Inicio propuesto</th></tr></thead>
  <tbody>${b.lineas.map(
    (l) => html`<tr><td><a href="${url`/panel/trabajador/${l.documentoAsociado}`}">${l.nombre}</a></td>
    <td><abbr title="${NEED_TEXT[l.necesidad]}">${NEED_LABEL[l.necesidad]}</abbr></td>
    <td>${shortDate(l.vacFechaFinal)}</td><td class="num">${l.vacDiasVacaciones}</td>
    <td>${
      l.diasCausadosDesde !== null
        ? html`${shortDate(l.vacFechaInicio)} <span class="hint">(se reserva cuando se causen los días, desde el ${shortDate(l.diasCausadosDesde)})</span>`
        : mayWrite
          ? html`<span>
      <input type="hidden" name="numeroDocumento" value="${l.documentoAsociado}">
      <input type="hidden" name="vacDiasVacaciones" value="${l.vacDiasVacaciones}">
      <input name="vacFechaInicio" type="text" inputmode="numeric" size="10" value="${startOf(l)}"
        aria-label="${`Inicio para ${l.nombre}`}">
      <button type="submit" formaction="${url`/panel/trabajador/${l.documentoAsociado}/vacaciones`}" name="accion" value="calcular"
        class="secondary">Revisar</button>
    </span>`
          : shortDate(l.vacFechaInicio)
    }</td></tr>`,
  )}</tbody>
</table></div>`;
    // A line of days earned later in the year cannot be booked today (rule a): it waits for them.
    const bookable = b.lineas.filter((l) => l.diasCausadosDesde === null).length;
    const lines =
      b.lineas.length === 0
        ? html`<p>No hay líneas propuestas para ${unit.name} en ${year}.</p>`
        : mayWrite
          ? html`<form method="post" action="/panel/plan/reservar" id="plan-reserva" novalidate>
  <input type="hidden" name="_csrf" value="${csrf}">
  <input type="hidden" name="anio" value="${year}">
  <input type="hidden" name="subgerencia" value="${unit.id}">
  ${NO_IMPLICIT_SUBMIT}
  ${table}
  ${
    bookable > 0
      ? html`<div class="actions"><button type="submit" name="accion" value="${refused?.confirm ? 'confirmar' : 'reservar'}">${
          refused?.confirm ? 'Confirmar la reserva' : 'Reservar el plan'
        } (${bookable === 1 ? 'una línea' : `${count(bookable)} líneas`})</button></div>`
      : ''
  }
</form>`
          : table;
    const body = html`<p>Una propuesta: primero los días que prescriben en el año (CST art. 488), luego quien acumularía más periodos
  de los que permite el art. 190, sin superar nunca el límite de personas a la vez. Nada se guarda hasta registrar una línea o reservar el plan.</p>
${choose}
${
  refused?.confirm
    ? html`<div class="flash flash-warning" role="status" id="avisos"><p>${refused.intro}</p><ul>${refused.problems.map(
        (p) => html`<li>${p.doc ? `${who(p.doc)}: ` : ''}${inPanelDates(p.text)}</li>`,
      )}</ul></div>`
    : refused
      ? html`<div class="flash flash-error" role="alert" id="rechazadas"><p>${refused.intro}</p><ul>${refused.problems.map(
          (p) => html`<li>${p.doc ? `${who(p.doc)}: ` : ''}${inPanelDates(p.text)}</li>`,
        )}</ul></div>`
      : ''
}
<div class="cards">
  <div class="card"><span class="value">${count(b.totales.colocados)}</span> trabajadores con fecha propuesta</div>
  <div class="card"><span class="value">${count(b.totales.sinColocar)}</span> sin colocar</div>
  <div class="card"><span class="value">${count(b.totales.diasQuePrescribenSinColocar)}</span> días que prescribirían</div>
</div>
<p class="muted">Inicios desde el ${shortDate(b.desde)}, con los 15 días de aviso del CST art. 187.</p>
${lines}
${
  leftOut.length === 0
    ? ''
    : html`<div class="scroll"><table>
  <caption>Sin colocar${b.sinColocar.length > leftOut.length ? ` (los primeros ${count(leftOut.length)} de ${count(b.sinColocar.length)})` : ''}</caption>
  <thead><tr><th scope="col">Trabajador</th><th scope="col" class="num">Días pendientes</th><th scope="col">Motivo</th></tr></thead>
  <tbody>${leftOut.map(
    (l) => html`<tr><td><a href="${url`/panel/trabajador/${l.documentoAsociado}`}">${l.nombre}</a></td>
    <td class="num">${l.diasPendientes}</td><td>${inPanelDates(l.mensaje)}</td></tr>`,
  )}</tbody>
</table></div>`
}
${
  mayWrite && b.lineas.length
    ? html`<p class="hint">«Revisar» abre la vista previa en la página del trabajador, con la fecha que escriba; allí se registra.
  «Reservar el plan» registra todas las líneas con días ya causados, con las fechas escritas, o ninguna si alguna no se puede registrar.</p>`
    : ''
}`;
    return ctx.render(req, reply, { title: 'Plan anual', section: 'plan', status: refused?.status, body });
  }

  app.get('/plan', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    return planPage(req, reply, { year: q.anio, unit: q.subgerencia });
  });

  app.post('/plan/reservar', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const asked = { year: body.anio, unit: body.subgerencia };
    const posted = postedLines(body);
    const starts = new Map(posted.map((l) => [l.doc, l.start]));
    const parsed = parsePlanLines(
      posted.map((l) => ({ numeroDocumento: l.doc, vacFechaInicio: fromDayMonthYear(l.start), vacDiasVacaciones: l.days })),
    );
    const docOf = (key: string) => {
      const i = posted.findIndex((_, j) => key === lineKey(j) || key.startsWith(`${lineKey(j)}.`));
      return i < 0 ? '' : posted[i]!.doc;
    };
    if (!parsed.ok) {
      const problems = Object.entries(parsed.errors).map(([k, text]) => ({ doc: docOf(k), text: labelled(text) }));
      return planPage(req, reply, asked, { intro: 'No se reservó nada: revise estas líneas.', problems, starts, status: 400 });
    }
    // CST art. 187: a start fewer than 15 days away is booked, but only once HR has seen the warning.
    const soon = parsed.value.flatMap((l) =>
      (noticesField(l.startDate, deps.today()).avisos ?? []).map((a) => ({ doc: l.documentNumber, text: a.mensaje })),
    );
    if (soon.length > 0 && body.accion !== 'confirmar') {
      const intro = 'Puede reservar el plan, pero tenga en cuenta:';
      return planPage(req, reply, asked, { intro, problems: soon, starts, status: 200, confirm: true });
    }
    const r = await booking.book(panelCall(req, req.panelUser!), parsed.value);
    if (!r.ok) {
      const problems =
        r.kind === 'refused'
          ? r.lines.map((l) => ({ doc: l.documentNumber, text: lineReasons(l.documentNumber, l.failure).join('; ') }))
          : Object.entries(planBookingRefusal(r).errors).map(([k, text]) => ({ doc: docOf(k), text: labelled(text) }));
      const intro =
        r.kind === 'refused'
          ? `No se reservó nada: ${r.lines.length === 1 ? 'una línea no se puede registrar' : `${count(r.lines.length)} líneas no se pueden registrar`}.`
          : 'No se reservó nada.';
      return planPage(req, reply, asked, { intro, problems, starts, status: planBookingRefusal(r).status });
    }
    const n = r.value.records.length;
    const notices = (planBookedBody(r.value.records, deps.today()).avisos ?? []).map((a) => ` ${inPanelDates(a.mensaje)}.`);
    ctx.flash(req, {
      kind: 'ok',
      text: `Plan reservado: ${n === 1 ? 'se registraron unas vacaciones' : `se registraron ${count(n)} vacaciones`}, pendientes de aprobación.${notices.join('')}`,
    });
    return reply.redirect(url`/panel/plan?subgerencia=${String(asked.unit ?? '')}&anio=${String(asked.year ?? '')}`, 303);
  });
}
