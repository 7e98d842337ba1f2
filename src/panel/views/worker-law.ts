import { NOT_IN_UNITS } from '../roles.ts';
import type { FastifyInstance } from 'fastify';
import { isServedDate } from '../../domain/index.ts';
import { lawProblemMessage, warningBody } from '../../app/law-messages.ts';
import { CONTENT_TYPES, csvBook, xlsxBook } from '../../app/book-formats.ts';
import { BOOK_FOR_PEOPLE } from '../../app/people-formats.ts';
import { registerBook } from '../../projections/reports/book.ts';
import { periodsProblem, type PeriodReport, type PeriodsReport } from '../../projections/reports/periods.ts';
import type { SettlementWarning } from '../../projections/reports/settlement.ts';
import type { WorkerFileRow } from '../../reference/worker-files.ts';
import { days, fromDayMonthYear, dateField, html, inPanelDates, longDate, pesos, shortDate, url, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';

/**
 * The worker page's vacation-law parts: the accrual periods and the balance on a chosen date, the
 * settlement on a chosen leaving date, and the register to download. Every figure is the register
 * read model's own (readSide.periodsOf and settlementOf, as the periods and settlement endpoints
 * answer): the panel words them, it never counts a day.
 */

/** The interface's words with their dates as the panel writes them ("2027-01-31" → "31 ene 2027"). */
const warningText = (w: SettlementWarning) => inPanelDates(warningBody(w).mensaje);

/** A date asked for in a query as day-month-year (or as the interface writes it); null when absent or not a date. */
export function askedDate(v: unknown): string | null {
  if (typeof v !== 'string' || v.trim() === '') return null;
  const d = fromDayMonthYear(v);
  return isServedDate(d) ? d : null;
}

function periodsTable(periods: PeriodReport[]): Html {
  if (periods.length === 0) return html`<p>El trabajador no tiene periodos de causación con nómina registrada.</p>`;
  return html`<table>
  <caption>Periodos de causación</caption>
  <thead><tr><th scope="col">Periodo</th><th scope="col">Desde</th><th scope="col">Causado el</th>
    <th scope="col" class="num">Causados</th><th scope="col" class="num">Disfrutados</th><th scope="col" class="num">Compensados</th>
    <th scope="col" class="num">Pendientes</th><th scope="col">Exigible desde</th><th scope="col">Prescribe el</th></tr></thead>
  <tbody>${periods.map(
    (p) => html`<tr><td>${p.number} (contrato ${p.contractId}${p.settled ? ', liquidado' : ''})</td><td>${shortDate(p.from)}</td>
    <td>${p.earnedOn ? shortDate(p.earnedOn) : p.closed ? 'proporcional' : 'en curso'}</td>
    <td class="num">${days(p.accrued)}</td><td class="num">${days(p.enjoyed)}</td><td class="num">${days(p.compensated)}</td>
    <td class="num">${days(p.pending)}</td><td>${p.enforceableFrom ? shortDate(p.enforceableFrom) : '—'}</td>
    <td>${p.prescribesOn ? html`${shortDate(p.prescribesOn)}${p.prescribed ? html` <strong>(prescrito)</strong>` : ''}` : '—'}</td></tr>`,
  )}</tbody>
</table>`;
}

const warningsList = (warnings: readonly SettlementWarning[]): Html =>
  warnings.length === 0 ? html`` : html`<ul class="warnings">${warnings.map((w) => html`<li>${warningText(w)}.</li>`)}</ul>`;

function totalsCards(report: PeriodsReport): Html {
  const t = report.totals;
  return html`<div class="cards">
  <div class="card"><span class="value">${days(t.accrued)}</span> días causados</div>
  <div class="card"><span class="value">${days(t.enjoyed)}</span> días disfrutados</div>
  <div class="card"><span class="value">${days(t.compensated)}</span> días compensados</div>
  <div class="card"><span class="value">${days(t.pending)}</span> días pendientes</div>
</div>`;
}

/** The periods section: on today, or on the date asked for (`?fecha=`), with the form to ask. */
export async function periodsSection(ctx: PanelContext, file: WorkerFileRow, query: Record<string, unknown>): Promise<Html> {
  const today = ctx.deps.today();
  const asked = askedDate(query.fecha);
  const asOf = asked ?? today;
  const bad = typeof query.fecha === 'string' && query.fecha.trim() !== '' && !asked;
  const doc = file.worker.documentNumber;
  const form = html`<form method="get" action="${url`/panel/trabajador/${doc}`}#periodos" class="row" novalidate>
  ${dateField({ id: 'fecha', label: 'Saldo a la fecha', value: typeof query.fecha === 'string' ? query.fecha : asOf })}
  <div><button type="submit" class="secondary">Ver el saldo</button></div>
</form>`;
  const head = html`<h2 id="periodos">Periodos y saldo ${asOf === today ? 'hoy' : `al ${longDate(asOf)}`}</h2>
${bad ? html`<p class="flash flash-error" role="alert">«${String(query.fecha)}» no es una fecha: escriba día, mes y año (07/12/2026).</p>` : ''}
${form}`;
  const problem = periodsProblem(file, asOf);
  if (problem) return html`${head}<p class="flash flash-error">${inPanelDates(lawProblemMessage(problem))}.</p>`;
  const report = await ctx.deps.readSide.periodsOf(file, asOf);
  return html`${head}${totalsCards(report)}${warningsList(report.warnings)}${periodsTable(report.periods)}`;
}

/** The settlement section: what a worker leaving on the date asked for (`?retiro=`) would be owed. */
export async function settlementSection(ctx: PanelContext, file: WorkerFileRow, query: Record<string, unknown>): Promise<Html> {
  const leaving = askedDate(query.retiro);
  const doc = file.worker.documentNumber;
  const form = html`<form method="get" action="${url`/panel/trabajador/${doc}`}#liquidacion" class="row" novalidate>
  ${dateField({ id: 'retiro', label: 'Fecha de retiro', value: typeof query.retiro === 'string' ? query.retiro : '' })}
  <div><button type="submit" class="secondary">Ver la liquidación</button></div>
</form>`;
  const head = html`<h2 id="liquidacion">Vista previa de la liquidación de vacaciones</h2>${form}`;
  if (typeof query.retiro !== 'string' || query.retiro.trim() === '') {
    return html`${head}<p class="hint">Escriba una fecha de retiro para ver los días pendientes y su valor. Nada se guarda.</p>`;
  }
  if (!leaving)
    return html`${head}<p class="flash flash-error" role="alert">«${query.retiro}» no es una fecha: escriba día, mes y año (07/12/2026).</p>`;
  const outcome = await ctx.deps.readSide.settlementOf(file, leaving);
  if (!outcome.ok) return html`${head}<p class="flash flash-error" role="alert">${inPanelDates(lawProblemMessage(outcome.problem))}.</p>`;
  const s = outcome.settlement;
  return html`${head}<section class="card" aria-labelledby="liq-title">
  <h3 id="liq-title">Retiro el ${longDate(s.leavingDate)}</h3>
  <dl class="facts">
    <dt>Días pendientes</dt><dd>${days(s.pending)}</dd>
    <dt>Valor</dt><dd>${pesos(s.value)} (salario ${pesos(s.contract.baseSalary)}, contrato ${s.contract.id})</dd>
  </dl>
  ${warningsList(s.warnings)}
  ${periodsTable(s.periods)}
  <p class="hint">Una vista previa: nada se ha guardado.</p>
</section>`;
}

/** The links to the worker's register. */
export const registerLinks = (doc: string) => html`<p class="actions">
  <a class="button secondary" href="${url`/panel/trabajador/${doc}/libro.csv`}" download>Libro de vacaciones (CSV)</a>
  <a class="button secondary" href="${url`/panel/trabajador/${doc}/libro.xlsx`}" download>Libro de vacaciones (XLSX)</a>
</p>`;

/** The worker's register (CST art. 187 §3) on today, written by the register's own CSV and XLSX writers. */
export function registerDownloadRoutes(app: FastifyInstance, ctx: PanelContext) {
  const { deps } = ctx;
  app.get('/trabajador/:documento/libro.:formato', async (req, reply) => {
    const { documento, formato } = req.params as { documento: string; formato: string };
    if ((formato !== 'csv' && formato !== 'xlsx') || documento.length > 40 || !(await deps.reference.workerByDocument(documento))) {
      return reply.callNotFound();
    }
    if (!(await ctx.seesWorker(req, documento))) return ctx.refuse(req, reply, NOT_IN_UNITS);
    const asOf = deps.today();
    const workers = registerBook(deps.db, {
      scope: { kind: 'trabajador', documentNumber: documento },
      asOf,
      current: true,
      from: null,
      to: null,
    });
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the register download stopped while being written');
    const body = await deps.readSide.fresh(async () =>
      formato === 'csv' ? csvBook(workers, failed, BOOK_FOR_PEOPLE) : xlsxBook(workers, failed, undefined, BOOK_FOR_PEOPLE),
    );
    req.log.info(
      { action: 'DESCARGA_LIBRO', numeroDocumento: documento, formato, responsable: req.panelUser!.email, source: 'panel' },
      'register downloaded',
    );
    return reply
      .header('content-type', CONTENT_TYPES[formato])
      .header('content-disposition', `attachment; filename="libro-vacaciones-${documento.replace(/[^0-9A-Za-z]/g, '')}-${asOf}.${formato}"`)
      .send(body);
  });
}
