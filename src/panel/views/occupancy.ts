import type { FastifyInstance } from 'fastify';
import { dayOfWeek, eachDay, isServedMonth, lastDayOfMonth } from '../../domain/index.ts';
import { html, monthName, monthSelect, shiftMonth, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { absencesIn, dailyCounts, spansIn } from '../../projections/occupancy/queries.ts';
import { companyLimitsOf, subgerencias, type CompanyLimit } from '../../reference/search.ts';
import { stateBadge } from './display-state.ts';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const WEEKDAYS = [
  ['lun', 'lunes'],
  ['mar', 'martes'],
  ['mié', 'miércoles'],
  ['jue', 'jueves'],
  ['vie', 'viernes'],
  ['sáb', 'sábado'],
  ['dom', 'domingo'],
] as const;

const daysOf = (month: string) => eachDay(`${month}-01`, lastDayOfMonth(month));
/** 0 = Monday … 6 = Sunday. */
const weekday = (day: string) => (dayOfWeek(day) + 6) % 7;

/**
 * The strictest limit of the company contracts under which the subgerencia's people work: the
 * booking rule applies each worker's own, so the grid marks a day once the smallest is reached.
 */
export function effectiveLimit(limits: CompanyLimit[]): number | null {
  const set = limits.map((l) => l.maxPeople).filter((n): n is number => n !== null);
  return set.length ? Math.min(...set) : null;
}

/**
 * People listed under the grid at most: a crowded subgerencia's month (thousands away in the same
 * weeks) would otherwise make a page of megabytes; the grid still counts every one.
 */
const LISTED = 200;

/** Ocupación: a subgerencia's month as a calendar of people away against the limit. */
export function occupancyPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/ocupacion', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const scope = ctx.unitsOf(req);
    // A jefe sees only the subgerencias they answer for.
    const units = (await subgerencias(deps.db)).filter((u) => scope === null || scope.includes(u.id));
    const today = deps.today();
    const asked = typeof query.subgerencia === 'string' ? query.subgerencia : '';
    const unit = units.find((u) => u.id === asked) ?? units[0];
    const month = isServedMonth(query.mes) ? query.mes : today.slice(0, 7);
    const problems: string[] = [];
    if (asked && !units.some((u) => u.id === asked))
      problems.push(`No existe la subgerencia «${asked}»; se muestra ${unit?.name ?? 'ninguna'}.`);
    if (typeof query.mes === 'string' && query.mes !== '' && !isServedMonth(query.mes))
      problems.push(`«${query.mes}» no es un mes válido (AAAA-MM); se muestra ${monthName(month)}.`);
    if (!unit) {
      return ctx.render(req, reply, {
        title: 'Ocupación',
        section: 'ocupacion',
        body: html`<p>No hay subgerencias en los datos de referencia.</p>`,
      });
    }
    const days = daysOf(month);
    const chosenDay = typeof query.dia === 'string' && DAY_RE.test(query.dia) && days.includes(query.dia) ? query.dia : null;
    // The grid counts every record; the list under it names the first LISTED of the month or of the day chosen.
    const [limits, spans, listed] = await Promise.all([
      companyLimitsOf(deps.db, unit.id),
      deps.readSide.fresh(() => spansIn(deps.db, unit.id, days[0]!, days.at(-1)!), { occupancy: true }),
      deps.readSide.fresh(() => absencesIn(deps.db, unit.id, chosenDay ?? days[0]!, chosenDay ?? days.at(-1)!, LISTED), {
        occupancy: true,
      }),
    ]);
    const limit = effectiveLimit(limits);
    const perDay = dailyCounts(days, spans);
    const href = (o: { subgerencia?: string; mes?: string; dia?: string }) =>
      url`/panel/ocupacion?subgerencia=${o.subgerencia ?? unit.id}&mes=${o.mes ?? month}` + (o.dia ? url`&dia=${o.dia}` : '');
    const i = units.indexOf(unit);
    const prevUnit = units[(i - 1 + units.length) % units.length]!;
    const nextUnit = units[(i + 1) % units.length]!;
    const atLimitDays = days.filter((d) => limit !== null && perDay.get(d)!.people >= limit);

    const weeks: (string | null)[][] = [];
    let week: (string | null)[] = Array(weekday(days[0]!)).fill(null);
    for (const d of days) {
      week.push(d);
      if (week.length === 7) {
        weeks.push(week);
        week = [];
      }
    }
    if (week.length) weeks.push([...week, ...Array(7 - week.length).fill(null)]);

    const cell = (d: string | null): Html => {
      if (!d) return html`<td class="out"></td>`;
      const n = perDay.get(d)!.people;
      const full = limit !== null && n >= limit;
      const cls = [full ? 'at-limit' : '', weekday(d) >= 5 ? 'weekend' : ''].filter(Boolean).join(' ');
      const label = `${shortDate(d)}: ${n} ${n === 1 ? 'persona' : 'personas'} de vacaciones${full ? ', en el límite' : ''}`;
      return html`<td class="${cls}"${d === today ? html` aria-current="date"` : ''}>
        <a class="day" href="${href({ dia: d })}" aria-label="${label}">${Number(d.slice(8))}</a>
        <span class="count" aria-hidden="true">${n}${limit !== null ? ` / ${limit}` : ''}${full ? ' · límite' : ''}</span>
      </td>`;
    };

    const total = chosenDay ? perDay.get(chosenDay)!.records : spans.length;
    const body = html`
<form method="get" action="/panel/ocupacion" class="row" novalidate>
  <div class="field"><label for="subgerencia">Subgerencia</label>
    <select id="subgerencia" name="subgerencia">
      ${units.map((u) => html`<option value="${u.id}"${u.id === unit.id ? html` selected` : ''}>${u.name} (${u.id})</option>`)}
    </select></div>
  ${monthSelect({ id: 'mes', label: 'Mes', month, today })}
  <div><button type="submit">Ver</button></div>
</form>
${problems.length ? html`<div class="flash flash-error" role="alert">${problems.join(' ')}</div>` : ''}
<nav class="pager" aria-label="Cambiar de mes o de subgerencia">
  <a href="${href({ mes: shiftMonth(month, -1) })}" rel="prev">← ${monthName(shiftMonth(month, -1))}</a>
  <a href="${href({ mes: shiftMonth(month, 1) })}" rel="next">${monthName(shiftMonth(month, 1))} →</a>
  <a href="${href({ subgerencia: prevUnit.id })}">Subgerencia anterior: ${prevUnit.name}</a>
  <a href="${href({ subgerencia: nextUnit.id })}">Subgerencia siguiente: ${nextUnit.name}</a>
</nav>
<p>${
      limit === null
        ? 'El contrato empresa de esta subgerencia no fija un máximo de personas de vacaciones al mismo tiempo.'
        : html`Máximo de personas de vacaciones al mismo tiempo: <strong>${limit}</strong>${
            limits.length > 1
              ? html` (el menor de sus contratos empresa: ${limits.map((l) => `${l.name}: ${l.maxPeople ?? 'sin máximo'}`).join('; ')})`
              : html` (contrato empresa ${limits[0]!.name})`
          }.`
    }
  ${atLimitDays.length ? html` Días en el límite: <strong>${atLimitDays.length}</strong>.` : ''}</p>
<table class="calendar">
  <caption>Personas de vacaciones por día en ${unit.name}, ${monthName(month)}</caption>
  <thead><tr>${WEEKDAYS.map(([short, long]) => html`<th scope="col"><abbr title="${long}">${short}</abbr></th>`)}</tr></thead>
  <tbody>${weeks.map((w) => html`<tr>${w.map(cell)}</tr>`)}</tbody>
</table>
<p class="legend">Cada día muestra las personas de vacaciones y el máximo; los días en el límite van resaltados y marcados «límite».
  Elija un día para ver quiénes son.</p>
<h2 id="quienes">${chosenDay ? `De vacaciones el ${shortDate(chosenDay)}` : `Vacaciones en ${monthName(month)}`}</h2>
${chosenDay ? html`<p><a href="${href({})}">Ver todo el mes</a></p>` : ''}
${
  total === 0
    ? html`<p>Nadie de la subgerencia está de vacaciones ${chosenDay ? 'ese día' : 'este mes'}.</p>`
    : html`<table>
  <caption>${
    total > LISTED
      ? chosenDay
        ? `Los primeros ${LISTED} de ${total} registros de ese día, por fecha de inicio`
        : `Los primeros ${LISTED} de ${total} registros, por fecha de inicio; elija un día para ver quiénes están ese día`
      : `${total} ${total === 1 ? 'registro' : 'registros'}`
  }</caption>
  <thead><tr>
    <th scope="col">Persona</th><th scope="col">Documento</th><th scope="col">Desde</th><th scope="col">Hasta</th>
    <th scope="col">Estado</th>
  </tr></thead>
  <tbody>${listed.map(
    (
      a,
    ) => html`<tr><td><a href="${url`/panel/trabajador/${a.documentNumber}#${a.codigoPila}`}">${a.name}</a></td><td>${a.documentNumber}</td>
    <td>${shortDate(a.startDate)}</td><td>${shortDate(a.endDate)}</td><td>${stateBadge({ ...a, deleted: false })}</td></tr>`,
  )}</tbody>
</table>`
}`;
    // A parameter that could not be used answers 400, with the month or subgerencia shown in its place.
    return ctx.render(req, reply, { title: 'Ocupación', section: 'ocupacion', body, status: problems.length ? 400 : 200 });
  });
}
