import type { FastifyInstance } from 'fastify';
import { addDays, dayOfWeek } from '../../domain/index.ts';
import { awayBetween, type AbsenceWithUnit } from '../../projections/occupancy/queries.ts';
import {
  PRESCRIPTION_WATCH_DAYS,
  SWEEP_EVERY_MINUTES,
  liabilityWatch,
  periodWatch,
  type PeriodWatch,
  type WatchedWorker,
} from '../../projections/reports/period-watch.ts';
import { awaitingApproval, type AwaitingApproval } from '../../projections/vacations/queries.ts';
import { subgerencias } from '../../reference/search.ts';
import { bogotaTime, count, html, longDate, pesos, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { stateBadge } from './display-state.ts';

/** People and records each list of the home page shows at most; the rest are counted and linked. */
const LIST_LIMIT = 15;

/** Monday and Sunday of the week of `day`. */
export function weekOf(day: string): [string, string] {
  const monday = addDays(day, -((dayOfWeek(day) + 6) % 7));
  return [monday, addDays(monday, 6)];
}

const people = (n: number) => `${count(n)} ${n === 1 ? 'persona' : 'personas'}`;

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

const link = (w: WatchedWorker) => html`<a href="${url`/panel/trabajador/${w.documentNumber}#periodos`}">${w.name}</a>`;
const more = (shown: number, total: number) =>
  total > shown ? html`<p class="muted">Se muestran ${shown} de ${count(total)} trabajadores.</p>` : '';

function watchList(watch: PeriodWatch): Html {
  const { accumulating, prescribing, continuous } = watch;
  return html`<h3>Más de dos periodos pendientes (CST art. 190)</h3>
${
  accumulating.total === 0
    ? html`<p>Nadie acumula más periodos de los permitidos.</p>`
    : html`<ul class="links">${accumulating.workers.map(
        (w) =>
          html`<li>${link(w)}: ${w.accumulation!.owed} periodos con días pendientes (máximo ${w.accumulation!.limit}${
            w.accumulation!.extended ? ', personal técnico o de confianza' : ''
          })</li>`,
      )}</ul>
${more(accumulating.workers.length, accumulating.total)}`
}
<h3>Días que prescriben en los próximos ${PRESCRIPTION_WATCH_DAYS} días (CST art. 488)</h3>
${
  prescribing.total === 0
    ? html`<p>Ningún periodo pendiente prescribe en los próximos ${PRESCRIPTION_WATCH_DAYS} días.</p>`
    : html`<ul class="links">${prescribing.workers.map((w) => html`<li>${link(w)}: prescriben el ${longDate(w.prescribesOn!)}</li>`)}</ul>
${more(prescribing.workers.length, prescribing.total)}`
}
<h3>Un año sin 6 días hábiles continuos disfrutados (CST art. 190)</h3>
${
  continuous.total === 0
    ? html`<p>Todos disfrutaron al menos 6 días hábiles continuos en el año de cada periodo.</p>`
    : html`<ul class="links">${continuous.workers.map(
        (w) => html`<li>${link(w)}: ${w.sixDays === 1 ? '1 periodo' : `${w.sixDays} periodos`} sin 6 días continuos disfrutados</li>`,
      )}</ul>
${more(continuous.workers.length, continuous.total)}`
}`;
}

/** When the periods were last figured, or that they are being figured for the first time. */
function watchNote(watch: PeriodWatch, today: string): Html {
  if (watch.figuredOn === null || watch.finishedAt === null) {
    return html`<p role="status">Los periodos de la empresa se están revisando por primera vez; vuelva a cargar la página en
  unos momentos.</p>`;
  }
  const day = watch.figuredOn === today ? '' : html` (con la fecha del ${longDate(watch.figuredOn)}; la revisión de hoy está en curso)`;
  return html`<p class="muted">Periodos de toda la empresa revisados el ${bogotaTime(watch.finishedAt.toISOString())}${day}. Se revisan de nuevo cada
  ${SWEEP_EVERY_MINUTES} minutos y cada día: una vacación registrada después aparece en la próxima revisión.</p>`;
}

/** Inicio: what needs doing today, each item a link to where it is done. */
export function homePageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/', async (req, reply) => {
    const scope = ctx.unitsOf(req);
    const today = deps.today();
    const [monday, sunday] = weekOf(today);
    const [units, todayAway, weekAway, pending, watch, owed] = await Promise.all([
      subgerencias(deps.db),
      deps.readSide.fresh(() => awayBetween(deps.db, scope, today, today, LIST_LIMIT), { occupancy: true }),
      deps.readSide.fresh(() => awayBetween(deps.db, scope, monday, sunday, LIST_LIMIT), { occupancy: true }),
      deps.readSide.fresh(() => awaitingApproval(deps.db, scope, LIST_LIMIT)),
      periodWatch(deps.db, scope, today, LIST_LIMIT),
      liabilityWatch(deps.db, scope),
    ]);
    const names = new Map(units.map((u) => [u.id, u.name]));
    const pendingCount = pending.capped ? `${count(pending.total)} o más` : count(pending.total);
    const calendar = (from: string) => url`/panel/calendario?desde=${from}`;
    const body = html`<p class="muted">Hoy es ${longDate(today)}.</p>
<div class="cards">
  <a class="card" href="#hoy"><span class="value">${count(todayAway.people)}</span> de vacaciones hoy</a>
  <a class="card" href="#semana"><span class="value">${count(weekAway.people)}</span> de vacaciones esta semana</a>
  <a class="card" href="#por-aprobar"><span class="value">${pendingCount}</span> por aprobar</a>
  ${
    watch.figuredOn === null
      ? ''
      : html`<a class="card" href="/panel/pasivo"><span class="value money">${pesos(owed.value)}</span> de pasivo vacacional${
          watch.figuredOn === today ? ' hoy' : ` el ${shortDate(watch.figuredOn)}`
        }</a>`
  }
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
    : html`${pending.total > pending.records.length ? html`<p>Se muestran las ${pending.records.length} más próximas de ${pendingCount}.</p>` : ''}
${approvalsTable(pending.records, names, ctx.may(req, 'approve') ? ctx.csrf(reply) : null)}`
}
<h2 id="periodos">Periodos que requieren atención</h2>
${watchNote(watch, today)}
${watchList(watch)}`;
    return ctx.render(req, reply, { title: 'Inicio', section: 'inicio', body });
  });
}
