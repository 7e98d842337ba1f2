import type { FastifyInstance } from 'fastify';
import { dayOfWeek, eachDay, isServedDate, isServedMonth, lastDayOfMonth, type HolidayLookup } from '../../domain/index.ts';
import { holidayCalendar } from '../../config/holidays.ts';
import { calendarPage, dailyCounts, type AbsenceWithUnit, type CalendarPerson } from '../../projections/occupancy/queries.ts';
import type { Queryable } from '../../db/types.ts';
import { companyLimitsOf, subgerencias, type Subgerencia } from '../../reference/search.ts';
import { count, html, monthName, monthSelect, shiftMonth, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { displayStateOf, stateLabel } from './display-state.ts';
import { effectiveLimit } from './occupancy.ts';

/** People a page of the calendar shows. */
export const CALENDAR_PAGE_SIZE = 25;
const WEEKDAY_LETTER = ['D', 'L', 'M', 'X', 'J', 'V', 'S'];

const pad = (n: number) => String(n).padStart(2, '0');

export interface CalendarView {
  /** The first month shown, YYYY-MM. */
  month: string;
  quarter: boolean;
  units: string[];
  page: number;
}

/** The view a query asks for, each part checked: what is not valid falls back, with a word in `problems`. */
export function calendarQuery(query: Record<string, unknown>, known: Subgerencia[], today: string, problems: string[]): CalendarView {
  const list = (v: unknown) =>
    (Array.isArray(v) ? v : v === undefined || v === '' ? [] : [v]).filter((x): x is string => typeof x === 'string');
  const asked = list(query.sg);
  const units = asked.filter((id) => known.some((u) => u.id === id));
  for (const id of asked) if (!units.includes(id)) problems.push(`No existe la subgerencia «${id}».`);
  let month = today.slice(0, 7);
  if (isServedDate(query.desde)) month = query.desde.slice(0, 7);
  if (typeof query.mes === 'string' && query.mes !== '') {
    if (isServedMonth(query.mes)) month = query.mes;
    else problems.push(`«${query.mes}» no es un mes válido; se muestra ${monthName(month)}.`);
  }
  const quarter = query.vista === 'trimestre';
  if (quarter) month = `${month.slice(0, 4)}-${pad(Math.floor((Number(month.slice(5)) - 1) / 3) * 3 + 1)}`;
  const page = typeof query.pagina === 'string' && /^[1-9]\d{0,5}$/.test(query.pagina) ? Number(query.pagina) : 1;
  return { month, quarter, units: units.length ? units : known.map((u) => u.id), page };
}

function hrefOf(v: CalendarView, all: readonly string[], change: Partial<CalendarView>): string {
  const o = { ...v, ...change };
  const q = new URLSearchParams();
  if (o.units.length !== all.length) for (const u of o.units) q.append('sg', u);
  q.set('mes', o.month);
  if (o.quarter) q.set('vista', 'trimestre');
  if (o.page > 1) q.set('pagina', String(o.page));
  return `/panel/calendario?${q.toString()}`;
}

interface Frame {
  days: string[];
  today: string;
  holidays: HolidayLookup;
}

const dayClass = (d: string, f: Frame) =>
  [dayOfWeek(d) === 0 || dayOfWeek(d) === 6 ? 'wk' : '', f.holidays.isHoliday(d) ? 'hol' : '', d === f.today ? 'today' : '']
    .filter(Boolean)
    .join(' ');

/** The shaded days under each line: weekends, holidays and today. */
const background = (f: Frame) => f.days.map((d, i) => html`<span class="bg gs-${i + 1} ${dayClass(d, f)}"></span>`);

function bar(a: AbsenceWithUnit, who: string, f: Frame): Html {
  const first = f.days[0]!;
  const last = f.days.at(-1)!;
  const from = a.startDate < first ? first : a.startDate;
  const to = a.endDate > last ? last : a.endDate;
  const start = f.days.indexOf(from) + 1;
  const end = f.days.indexOf(to) + 2;
  const state = displayStateOf({ ...a, deleted: false });
  const text = `${who}: del ${shortDate(a.startDate)} al ${shortDate(a.endDate)}, ${a.businessDays} días hábiles, ${stateLabel({ ...a, deleted: false }).toLowerCase()}`;
  const cut = `${a.startDate < first ? ' cut-l' : ''}${a.endDate > last ? ' cut-r' : ''}`;
  return html`<a class="bar ${state} gs-${start} ge-${end}${cut}" href="${url`/panel/trabajador/${a.documentNumber}#${a.codigoPila}`}"><span class="visually-hidden">${text}</span><span class="tip" aria-hidden="true">${text}</span></a>`;
}

function personLine(p: CalendarPerson, f: Frame, n: number): Html {
  return html`<li class="line"><div class="who"><a href="${url`/panel/trabajador/${p.documentNumber}`}">${p.name}</a></div>
  <div class="track n${n}">${background(f)}${p.absences.map((a) => bar(a, p.name, f))}</div></li>`;
}

interface UnitLoad {
  unit: Subgerencia;
  limit: number | null;
  /** People away each day. */
  counts: Map<string, number>;
  /** People away some day of the window. */
  people: number;
}

function unitHeader(load: UnitLoad, f: Frame, n: number): Html {
  const full = load.limit === null ? [] : f.days.filter((d) => (load.counts.get(d) ?? 0) >= load.limit!);
  return html`<li class="line unit"><div class="who"><h2>${load.unit.name}</h2>
    <span class="hint">${count(load.people)} ${load.people === 1 ? 'persona' : 'personas'} de vacaciones; ${
      load.limit === null ? 'sin máximo de personas a la vez' : `máximo ${load.limit} personas a la vez`
    }</span></div>
  <div class="track n${n}" aria-hidden="true">${f.days.map((d, i) => {
    const c = load.counts.get(d) ?? 0;
    return html`<span class="count gs-${i + 1} ${dayClass(d, f)}${full.includes(d) ? ' full' : ''}">${c > 0 ? c : ''}</span>`;
  })}</div>
  <p class="limit-days">${
    full.length === 0 ? 'Ningún día en el límite.' : html`<strong>Días en el límite:</strong> ${full.map((d) => shortDate(d)).join(', ')}.`
  }</p></li>`;
}

/** The people a page of the calendar shows, and the loads of their subgerencias against their limits. */
async function pageOf(db: Queryable, v: CalendarView, known: readonly Subgerencia[], from: string, to: string) {
  const page = await calendarPage(db, v.units, from, to, CALENDAR_PAGE_SIZE, (v.page - 1) * CALENDAR_PAGE_SIZE);
  const days = eachDay(from, to);
  const loads = await Promise.all(
    page.units.map(async (u): Promise<UnitLoad> => {
      const counts = new Map([...dailyCounts(days, u.spans)].map(([d, c]) => [d, c.people]));
      const limit = effectiveLimit(await companyLimitsOf(db, u.id));
      return { unit: known.find((k) => k.id === u.id)!, limit, counts, people: u.people };
    }),
  );
  return { people: page.people, loads, total: page.total, more: page.more };
}

/** Calendario: a line per person away, a bar per vacation, over a month or a quarter, by subgerencia. */
export function calendarPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  const holidays = holidayCalendar(deps.config);
  app.get('/calendario', async (req, reply) => {
    const scope = ctx.unitsOf(req);
    const known = (await subgerencias(deps.db)).filter((u) => scope === null || scope.includes(u.id));
    const today = deps.today();
    const problems: string[] = [];
    const v = calendarQuery(req.query as Record<string, unknown>, known, today, problems);
    const all = known.map((u) => u.id);
    const last = v.quarter ? lastDayOfMonth(shiftMonth(v.month, 2)) : lastDayOfMonth(v.month);
    const f: Frame = { days: eachDay(`${v.month}-01`, last), today, holidays };
    const n = f.days.length;
    const { people, loads, total, more } = await deps.readSide.fresh(() => pageOf(deps.db, v, known, f.days[0]!, last), {
      occupancy: true,
    });
    const span = v.quarter ? `el trimestre de ${monthName(v.month)} a ${monthName(shiftMonth(v.month, 2))}` : monthName(v.month);
    const step = v.quarter ? 3 : 1;
    const shownFrom = (v.page - 1) * CALENDAR_PAGE_SIZE + 1;
    const shownTo = (v.page - 1) * CALENDAR_PAGE_SIZE + people.length;
    const lines: Html[] = [];
    for (const p of people) {
      const load = loads.find((l) => l.unit.id === p.subgerenciaId)!;
      if (lines.length === 0 || people[people.indexOf(p) - 1]?.subgerenciaId !== p.subgerenciaId) lines.push(unitHeader(load, f, n));
      lines.push(personLine(p, f, n));
    }
    const body = html`<form method="get" action="/panel/calendario" class="filters" novalidate>
  <fieldset><legend>Subgerencias</legend>
    ${known.map(
      (u) =>
        html`<label class="check"><input type="checkbox" name="sg" value="${u.id}"${
          v.units.includes(u.id) && v.units.length !== all.length ? html` checked` : ''
        }> ${u.name}</label>`,
    )}
    <p class="hint">Ninguna marcada: todas.</p>
  </fieldset>
  <div class="row">
    ${monthSelect({ id: 'mes', label: 'Desde el mes', month: v.month, today })}
    <div class="field"><label for="vista">Periodo</label>
      <select id="vista" name="vista"><option value="mes"${v.quarter ? '' : html` selected`}>Un mes</option>
        <option value="trimestre"${v.quarter ? html` selected` : ''}>Un trimestre</option></select></div>
    <div><button type="submit">Ver</button></div>
  </div>
</form>
${problems.length ? html`<div class="flash flash-error" role="alert">${problems.join(' ')}</div>` : ''}
<nav class="pager" aria-label="Cambiar de periodo">
  <a href="${hrefOf(v, all, { month: shiftMonth(v.month, -step), page: 1 })}" rel="prev">← ${v.quarter ? 'Trimestre anterior' : monthName(shiftMonth(v.month, -1))}</a>
  <a href="${hrefOf(v, all, { month: today.slice(0, 7), quarter: false, page: 1 })}">Este mes</a>
  <a href="${hrefOf(v, all, { month: shiftMonth(v.month, step), page: 1 })}" rel="next">${v.quarter ? 'Trimestre siguiente' : monthName(shiftMonth(v.month, 1))} →</a>
</nav>
<p id="cal-resumen">${
      total === 0
        ? `Nadie de ${v.units.length === all.length ? 'la empresa' : 'estas subgerencias'} está de vacaciones en ${span}.`
        : people.length === 0
          ? `No hay más personas de vacaciones en ${span}: vuelva a la primera página.`
          : total === null
            ? `Personas de vacaciones en ${span}, por subgerencia; se muestran ${count(shownFrom)} a ${count(shownTo)}.`
            : `${count(total)} ${total === 1 ? 'persona' : 'personas'} de vacaciones en ${span}; se muestran ${count(shownFrom)} a ${count(shownTo)}.`
    }</p>
${legend()}
${
  people.length === 0
    ? ''
    : html`<div class="cal" role="region" aria-labelledby="cal-resumen" tabindex="0">
  <div class="line head" aria-hidden="true"><div class="who">Persona</div><div class="track n${n}">${f.days.map((d, i) =>
    // A quarter's columns are too narrow for every number: Mondays and the first of each month carry one.
    v.quarter
      ? html`<span class="day gs-${i + 1} ${dayClass(d, f)}">${
          dayOfWeek(d) === 1 || d.endsWith('-01')
            ? html`<i><b>${Number(d.slice(8))}</b>${d.endsWith('-01') ? monthName(d.slice(0, 7)).slice(0, 3) : ''}</i>`
            : ''
        }</span>`
      : html`<span class="day gs-${i + 1} ${dayClass(d, f)}"><b>${Number(d.slice(8))}</b>${WEEKDAY_LETTER[dayOfWeek(d)]}</span>`,
  )}</div></div>
  <ul class="lines">${lines}</ul>
</div>`
}
${
  v.page > 1 || more
    ? html`<nav class="pager" aria-label="Páginas de personas">
  ${v.page > 1 ? html`<a href="${hrefOf(v, all, { page: v.page - 1 })}" rel="prev">← Página anterior</a>` : ''}
  <span>Página ${count(v.page)}${total === null ? '' : ` de ${count(Math.max(1, Math.ceil(total / CALENDAR_PAGE_SIZE)))}`}</span>
  ${more ? html`<a href="${hrefOf(v, all, { page: v.page + 1 })}" rel="next">Página siguiente →</a>` : ''}
</nav>`
    : ''
}`;
    // A parameter that could not be used answers 400, with what is shown in its place.
    return ctx.render(req, reply, { title: 'Calendario', section: 'calendario', body, status: problems.length ? 400 : 200 });
  });
}

function legend(): Html {
  return html`<ul class="legend-list" aria-label="Leyenda">
  <li><span class="swatch aprobada" aria-hidden="true"></span> Aprobada (relleno continuo)</li>
  <li><span class="swatch pendiente" aria-hidden="true"></span> Pendiente de aprobación (rayada)</li>
  <li><span class="swatch interrumpida" aria-hidden="true"></span> Interrumpida (punteada)</li>
  <li><span class="swatch wk" aria-hidden="true"></span> Fin de semana o festivo</li>
  <li><span class="swatch today" aria-hidden="true"></span> Hoy</li>
  <li><span class="swatch full" aria-hidden="true"></span> Día en el límite de la subgerencia (cuadriculado)</li>
</ul>
<p class="hint">Pase el puntero o el foco por una barra para ver sus detalles; las flechas llevan de una barra a otra.</p>`;
}
