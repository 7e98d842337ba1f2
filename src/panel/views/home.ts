import type { FastifyInstance } from 'fastify';
import { addDays, dayOfWeek } from '../../domain/index.ts';
import { awayBetween, type AbsenceWithUnit } from '../../projections/occupancy/queries.ts';
import { awaitingApproval, type AwaitingApproval } from '../../projections/vacations/queries.ts';
import { subgerencias } from '../../reference/search.ts';
import { html, longDate, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { PERIOD_WATCH_BATCH, PRESCRIPTION_WATCH_DAYS, watchPeriods, type WatchedWorker } from '../period-watch.ts';
import { stateBadge } from './display-state.ts';

/** People and records each list of the home page shows at most; the rest are counted and linked. */
const LIST_LIMIT = 15;

/** Monday and Sunday of the week of `day`. */
export function weekOf(day: string): [string, string] {
  const monday = addDays(day, -((dayOfWeek(day) + 6) % 7));
  return [monday, addDays(monday, 6)];
}

const people = (n: number) => `${n} ${n === 1 ? 'persona' : 'personas'}`;

function awayTable(caption: string, list: AbsenceWithUnit[], units: Map<string, string>): Html {
  return html`<table>
  <caption>${caption}</caption>
  <thead><tr><th scope="col">Persona</th><th scope="col">Subgerencia</th><th scope="col">Desde</th><th scope="col">Hasta</th>
    <th scope="col">Estado</th></tr></thead>
  <tbody>${list.map(
    (a) => html`<tr><td><a href="${url`/panel/trabajador/${a.documentNumber}#${a.codigoPila}`}">${a.name}</a></td>
    <td>${units.get(a.subgerenciaId) ?? a.subgerenciaId}</td><td>${shortDate(a.startDate)}</td><td>${shortDate(a.endDate)}</td>
    <td>${stateBadge({ ...a, deleted: false })}</td></tr>`,
  )}</tbody>
</table>`;
}

/** Records waiting for approval; with the approve button only for a role that approves (`csrf` null: none). */
function approvalsTable(list: AwaitingApproval[], units: Map<string, string>, csrf: string | null): Html {
  return html`<table>
  <caption>Vacaciones por aprobar, la más próxima primero</caption>
  <thead><tr><th scope="col">Persona</th><th scope="col">Subgerencia</th><th scope="col">Desde</th><th scope="col">Hasta</th>
    <th scope="col" class="num">Días hábiles</th><th scope="col">Acción</th></tr></thead>
  <tbody>${list.map(
    (v) => html`<tr><td><a href="${url`/panel/trabajador/${v.documentNumber}#${v.codigoPila}`}">${v.name}</a></td>
    <td>${v.subgerenciaId ? (units.get(v.subgerenciaId) ?? v.subgerenciaId) : '—'}</td>
    <td>${shortDate(v.startDate)}</td><td>${shortDate(v.endDate)}</td>
    <td class="num">${v.businessDays}${v.compensated ? ' (en dinero)' : ''}</td>
    <td>${
      csrf === null
        ? 'Pendiente'
        : html`<form method="post" action="${url`/panel/vacaciones/${v.codigoPila}/aprobar`}" class="inline">
      <input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="volver" value="/panel">
      <button type="submit" aria-label="Aprobar las vacaciones de ${v.name} del ${shortDate(v.startDate)} al ${shortDate(
        v.endDate,
      )}">Aprobar</button></form>`
    }</td></tr>`,
  )}</tbody>
</table>`;
}

function watchList(workers: WatchedWorker[]): Html {
  const accumulating = workers.filter((w) => w.accumulation);
  const prescribing = workers.filter((w) => w.prescribesOn).sort((a, b) => a.prescribesOn!.localeCompare(b.prescribesOn!));
  const link = (w: WatchedWorker) => html`<a href="${url`/panel/trabajador/${w.documentNumber}#periodos`}">${w.name}</a>`;
  return html`<h3>Más de dos periodos pendientes (CST art. 190)</h3>
${
  accumulating.length === 0
    ? html`<p>Nadie acumula más periodos de los permitidos.</p>`
    : html`<ul class="links">${accumulating.map(
        (w) =>
          html`<li>${link(w)}: ${w.accumulation!.owed} periodos con días pendientes (máximo ${w.accumulation!.limit}${
            w.accumulation!.extended ? ', personal técnico o de confianza' : ''
          })</li>`,
      )}</ul>`
}
<h3>Días que prescriben en los próximos ${PRESCRIPTION_WATCH_DAYS} días (CST art. 488)</h3>
${
  prescribing.length === 0
    ? html`<p>Ningún periodo pendiente prescribe en los próximos ${PRESCRIPTION_WATCH_DAYS} días.</p>`
    : html`<ul class="links">${prescribing.map((w) => html`<li>${link(w)}: prescriben el ${longDate(w.prescribesOn!)}</li>`)}</ul>`
}`;
}

/** Inicio: what needs doing today, each item a link to where it is done. */
export function homePageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const scope = ctx.unitsOf(req);
    const today = deps.today();
    const [monday, sunday] = weekOf(today);
    const after = typeof query.revisar === 'string' && /^\d{1,15}$/.test(query.revisar) ? Number(query.revisar) : 0;
    const [units, todayAway, weekAway, pending, watch] = await Promise.all([
      subgerencias(deps.db),
      deps.readSide.fresh(() => awayBetween(deps.db, scope, today, today, LIST_LIMIT), { occupancy: true }),
      deps.readSide.fresh(() => awayBetween(deps.db, scope, monday, sunday, LIST_LIMIT), { occupancy: true }),
      deps.readSide.fresh(() => awaitingApproval(deps.db, scope, LIST_LIMIT)),
      watchPeriods(deps, after, scope),
    ]);
    const names = new Map(units.map((u) => [u.id, u.name]));
    const calendar = (from: string) => url`/panel/calendario?desde=${from}`;
    const body = html`<p class="muted">Hoy es ${longDate(today)}.</p>
<div class="cards">
  <a class="card" href="#hoy"><span class="value">${todayAway.people}</span> de vacaciones hoy</a>
  <a class="card" href="#semana"><span class="value">${weekAway.people}</span> de vacaciones esta semana</a>
  <a class="card" href="#por-aprobar"><span class="value">${pending.total}</span> por aprobar</a>
</div>
<h2 id="hoy">De vacaciones hoy</h2>
${
  todayAway.people === 0
    ? html`<p>Nadie está de vacaciones hoy.</p>`
    : html`${awayTable(`${people(todayAway.people)} de vacaciones hoy`, todayAway.absences, names)}
${todayAway.people > todayAway.absences.length ? html`<p><a href="${calendar(today)}">Ver a todos en el calendario</a></p>` : ''}`
}
<h2 id="semana">De vacaciones esta semana</h2>
<p class="muted">Del lunes ${longDate(monday)} al domingo ${longDate(sunday)}.</p>
${
  weekAway.people === 0
    ? html`<p>Nadie está de vacaciones esta semana.</p>`
    : html`${awayTable(`${people(weekAway.people)} de vacaciones esta semana`, weekAway.absences, names)}
<p><a href="${calendar(monday)}">Ver la semana en el calendario</a></p>`
}
<h2 id="por-aprobar">Por aprobar</h2>
${
  pending.total === 0
    ? html`<p>No hay vacaciones esperando aprobación.</p>`
    : html`${pending.total > pending.records.length ? html`<p>Se muestran las ${pending.records.length} más próximas de ${pending.total}.</p>` : ''}
${approvalsTable(pending.records, names, ctx.may(req, 'approve') ? ctx.csrf(reply) : null)}`
}
<h2 id="periodos">Periodos que requieren atención</h2>
<p class="muted">Revisados ${watch.reviewed} trabajadores${after > 0 ? ' de este tramo' : ''}: los periodos de cada uno se calculan
  con su nómina, por eso se revisan de ${PERIOD_WATCH_BATCH} en ${PERIOD_WATCH_BATCH}.</p>
${watchList(watch.workers)}
<nav class="pager" aria-label="Tramos de trabajadores revisados">
  ${after > 0 ? html`<a href="/panel#periodos">Volver al primer tramo</a>` : ''}
  ${watch.next !== null ? html`<a href="${url`/panel?revisar=${watch.next}`}#periodos">Revisar los siguientes ${PERIOD_WATCH_BATCH} trabajadores</a>` : ''}
</nav>`;
    return ctx.render(req, reply, { title: 'Inicio', section: 'inicio', body });
  });
}
