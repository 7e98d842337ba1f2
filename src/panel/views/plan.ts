import type { FastifyInstance } from 'fastify';
import { NEED_TEXT, planBody, planYears } from '../../app/plan.ts';
import { annualPlan } from '../../projections/reports/plan.ts';
import { subgerencias } from '../../reference/search.ts';
import { count, dayMonthYear, html, inPanelDates, shortDate, url } from '../html.ts';
import type { PanelContext } from '../context.ts';

/** Rows of the workers left out shown at most; the API gives them all. */
const SHOWN_LEFT_OUT = 200;

const NEED_LABEL = { prescribe: 'Prescriben', acumula: 'Acumula', pendiente: 'Pendientes' } as const;

/**
 * Plan anual: the year's proposed vacations of a subgerencia, from the same planner as the API.
 * A line is booked as any other request, on the worker's page, after its preview (and the law's
 * notices) at the date HR chose.
 */
export function planPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;

  app.get('/plan', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const scope = ctx.unitsOf(req);
    const units = (await subgerencias(deps.db)).filter((u) => scope === null || scope.includes(u.id));
    const today = deps.today();
    const years = planYears(today);
    const askedYear = Number(q.anio);
    const year = years.includes(askedYear) ? askedYear : years.at(-1)!;
    const unit = units.find((u) => u.id === q.subgerencia) ?? units[0];
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
    const body = html`<p>Una propuesta: primero los días que prescriben en el año (CST art. 488), luego quien acumularía más periodos
  de los que permite el art. 190, sin superar nunca el límite de personas a la vez. Nada se guarda hasta registrar cada línea.</p>
${choose}
<div class="cards">
  <div class="card"><span class="value">${count(b.totales.colocados)}</span> trabajadores con fecha propuesta</div>
  <div class="card"><span class="value">${count(b.totales.sinColocar)}</span> sin colocar</div>
  <div class="card"><span class="value">${count(b.totales.diasQuePrescribenSinColocar)}</span> días que prescribirían</div>
</div>
<p class="muted">Inicios desde el ${shortDate(b.desde)}, con los 15 días de aviso del CST art. 187.</p>
${
  b.lineas.length === 0
    ? html`<p>No hay líneas propuestas para ${unit.name} en ${year}.</p>`
    : html`<div class="scroll"><table>
  <caption>Plan de ${unit.name} en ${year}</caption>
  <thead><tr><th scope="col">Trabajador</th><th scope="col">Prioridad</th><th scope="col">Hasta</th>
    <th scope="col" class="num">Días hábiles</th><th scope="col">Inicio propuesto</th></tr></thead>
  <tbody>${b.lineas.map(
    (l) => html`<tr><td><a href="${url`/panel/trabajador/${l.documentoAsociado}`}">${l.nombre}</a></td>
    <td><abbr title="${NEED_TEXT[l.necesidad]}">${NEED_LABEL[l.necesidad]}</abbr></td>
    <td>${shortDate(l.vacFechaFinal)}</td><td class="num">${l.vacDiasVacaciones}</td>
    <td>${
      mayWrite
        ? html`<form method="post" action="${url`/panel/trabajador/${l.documentoAsociado}/vacaciones`}" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}">
      <input type="hidden" name="vacDiasVacaciones" value="${l.vacDiasVacaciones}">
      <input name="vacFechaInicio" type="text" inputmode="numeric" size="10" value="${dayMonthYear(l.vacFechaInicio)}"
        aria-label="${`Inicio para ${l.nombre}`}">
      <button type="submit" name="accion" value="calcular" class="secondary">Revisar</button>
    </form>`
        : shortDate(l.vacFechaInicio)
    }</td></tr>`,
  )}</tbody>
</table></div>`
}
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
${mayWrite ? html`<p class="hint">«Revisar» abre la vista previa en la página del trabajador, con la fecha que escriba; allí se registra.</p>` : ''}`;
    return ctx.render(req, reply, { title: 'Plan anual', section: 'plan', body });
  });
}
