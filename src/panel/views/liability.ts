import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isServedMonth, lastDayOfMonth } from '../../domain/index.ts';
import { CONTENT_TYPES, csvTable, xlsxTable } from '../../app/book-formats.ts';
import { LIABILITY_TABLE, MOVEMENT_TABLE, liabilityTableRows, movementTableRows } from '../../app/liability-formats.ts';
import {
  liabilityLines,
  liabilityTally,
  movementLines,
  movementTally,
  type LiabilityScope,
  type LiabilitySum,
  type MovementSum,
  type Totals,
} from '../../projections/reports/liability.ts';
import { days as daysOfUnits } from '../../projections/reports/periods.ts';
import { subgerencias } from '../../reference/search.ts';
import { count, days, html, longDate, monthName, monthSelect, pesos, shiftMonth, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';

/** 360ths of a day as people read days: "12,5". */
const days360Days = (units: number) => days(daysOfUnits(units));

/** The person's scope: an area head's subgerencias, everyone's otherwise. */
function scopeOf(ctx: PanelContext, req: FastifyRequest): LiabilityScope {
  const units = ctx.unitsOf(req);
  return units === null ? {} : { units };
}

/** The month asked for, or the last one closed. */
const monthOf = (asked: unknown, today: string) => (isServedMonth(asked) ? asked : shiftMonth(today.slice(0, 7), -1));

function liabilityTable(t: Totals<LiabilitySum>, names: Map<string, string>, date: string): Html {
  const row = (label: Html | string, s: LiabilitySum, th = false) =>
    html`<tr>${th ? html`<th scope="row">${label}</th>` : html`<td>${label}</td>`}<td class="num">${count(s.workers)}</td>
    <td class="num">${days360Days(s.pendingUnits)}</td><td class="num">${pesos(s.value)}</td>
    <td class="num">${days360Days(s.advanceUnits)}</td><td class="num">${pesos(s.advance)}</td></tr>`;
  return html`<table>
  <caption>Pasivo vacacional por subgerencia al ${longDate(date)}</caption>
  <thead><tr><th scope="col">Subgerencia</th><th scope="col" class="num">Trabajadores</th><th scope="col" class="num">Días pendientes</th>
    <th scope="col" class="num">Pasivo</th><th scope="col" class="num">Días anticipados</th><th scope="col" class="num">Anticipado</th></tr></thead>
  <tbody>${[...t.bySubgerencia].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, s]) => row(names.get(id) ?? id, s))}</tbody>
  <tfoot>${row('Total', t.company, true)}</tfoot>
</table>`;
}

function movementTable(t: Totals<MovementSum>, names: Map<string, string>, month: string): Html {
  const row = (label: Html | string, s: MovementSum, th = false) =>
    html`<tr>${th ? html`<th scope="row">${label}</th>` : html`<td>${label}</td>`}<td class="num">${pesos(s.opening)}</td>
    <td class="num">${pesos(s.accrued)}</td><td class="num">${pesos(s.taken)}</td><td class="num">${pesos(s.revaluation)}</td>
    <td class="num">${pesos(s.closing)}</td></tr>`;
  return html`<table>
  <caption>Movimiento del pasivo en ${monthName(month)}, por subgerencia (neto de lo anticipado)</caption>
  <thead><tr><th scope="col">Subgerencia</th><th scope="col" class="num">Saldo inicial</th><th scope="col" class="num">Causado</th>
    <th scope="col" class="num">Tomado</th><th scope="col" class="num">Ajuste por salario</th><th scope="col" class="num">Saldo final</th></tr></thead>
  <tbody>${[...t.bySubgerencia].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, s]) => row(names.get(id) ?? id, s))}</tbody>
  <tfoot>${row('Total', t.company, true)}</tfoot>
</table>`;
}

/**
 * Pasivo: what the company (or an area head's subgerencias) owes in vacations at the close of a
 * month, by subgerencia, and how it moved in that month; the same figures as
 * GET /api/vacaciones/pasivo and /pasivo/movimiento, and their downloads with Spanish headers.
 */
export function liabilityPageRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/pasivo', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const today = deps.today();
    const month = monthOf(query.mes, today);
    const bad = typeof query.mes === 'string' && query.mes !== '' && !isServedMonth(query.mes);
    const close = lastDayOfMonth(month);
    const scope = scopeOf(ctx, req);
    const liability = liabilityTally();
    const movement = movementTally();
    // One pass: each worker's movement holds the liability on the month's last day as its closing.
    const [units] = await Promise.all([
      subgerencias(deps.db),
      deps.readSide.fresh(async () => {
        for await (const l of movementLines(deps.db, deps.calendar, scope, month)) {
          movement.take(l.contract, l.movement);
          if (l.movement.closing) liability.take(l.contract, l.movement.closing);
        }
      }),
    ]);
    const names = new Map(units.map((u) => [u.id, u.name]));
    const t = liability.totals;
    const download = (what: string, formato: string) => url`/panel/pasivo/${what}.${formato}?mes=${month}`;
    const body = html`<form method="get" action="/panel/pasivo" class="row" novalidate>
  ${monthSelect({ id: 'mes', label: 'Mes', month, today })}
  <div><button type="submit">Ver</button></div>
</form>
${bad ? html`<div class="flash flash-error" role="alert">«${String(query.mes)}» no es un mes válido (AAAA-MM); se muestra ${monthName(month)}.</div>` : ''}
<p class="muted">Lo que se debe en vacaciones causadas y no disfrutadas ni pagadas al cierre del ${longDate(close)}${
      close > today ? html` (<strong>proyección</strong>: solo causa la nómina ya corrida)` : ''
    }, valorado al salario con que se pagarían.</p>
<div class="cards">
  <div class="card"><span class="value money">${pesos(t.company.value)}</span> de pasivo vacacional</div>
  <div class="card"><span class="value money">${pesos(t.company.advance)}</span> pagado por anticipado, aparte</div>
  <div class="card"><span class="value">${count(t.company.workers)}</span> trabajadores con contrato vigente</div>
</div>
<h2 id="por-subgerencia">Por subgerencia</h2>
${t.company.workers === 0 ? html`<p>Nadie tiene un contrato vigente al ${longDate(close)}.</p>` : liabilityTable(t, names, close)}
<h2 id="movimiento">Movimiento del mes</h2>
<p class="muted">Saldo inicial el ${longDate(lastDayOfMonth(shiftMonth(month, -1)))}; causado y tomado al salario del cierre; el ajuste recoge los
  cambios de salario y el redondeo al peso.</p>
${movement.totals.company.workers === 0 ? html`<p>Sin movimiento en ${monthName(month)}.</p>` : movementTable(movement.totals, names, month)}
<h2 id="descargas">Descargas</h2>
<ul class="links">
  <li><a href="${download('pasivo', 'xlsx')}">Pasivo por trabajador (Excel)</a> · <a href="${download('pasivo', 'csv')}">CSV</a></li>
  <li><a href="${download('movimiento', 'xlsx')}">Movimiento por trabajador (Excel)</a> · <a href="${download('movimiento', 'csv')}">CSV</a></li>
</ul>
<nav class="pager" aria-label="Cambiar de mes">
  <a href="${url`/panel/pasivo?mes=${shiftMonth(month, -1)}`}" rel="prev">← ${monthName(shiftMonth(month, -1))}</a>
  <a href="${url`/panel/pasivo?mes=${shiftMonth(month, 1)}`}" rel="next">${monthName(shiftMonth(month, 1))} →</a>
</nav>`;
    return ctx.render(req, reply, { title: 'Pasivo vacacional', section: 'pasivo', body, status: bad ? 400 : 200 });
  });

  app.get('/pasivo/:que.:formato', async (req, reply) => {
    const { que, formato } = req.params as { que: string; formato: string };
    const month = monthOf((req.query as Record<string, unknown>).mes, deps.today());
    if ((que !== 'pasivo' && que !== 'movimiento') || (formato !== 'csv' && formato !== 'xlsx')) return reply.callNotFound();
    const scope = scopeOf(ctx, req);
    const close = lastDayOfMonth(month);
    const [table, rows, title] =
      que === 'pasivo'
        ? [LIABILITY_TABLE, liabilityTableRows(close, liabilityLines(deps.db, deps.calendar, scope, close)), 'Pasivo vacacional']
        : [MOVEMENT_TABLE, movementTableRows(month, movementLines(deps.db, deps.calendar, scope, month)), 'Movimiento del pasivo'];
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the liability download stopped while being written');
    await deps.readSide.fresh(async () => {});
    const labels = table.people.columns.map((c) => c.label);
    const body =
      formato === 'csv' ? csvTable(labels, rows, failed, table.people) : xlsxTable(title, labels, rows, failed, undefined, table.people);
    const name = que === 'pasivo' ? `pasivo-vacaciones-${close}` : `pasivo-vacaciones-movimiento-${month}`;
    return reply
      .header('content-type', CONTENT_TYPES[formato])
      .header('content-disposition', `attachment; filename="${name}.${formato}"`)
      .send(body);
  });
}
