import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance } from 'fastify';
import {
  FIRST_WORKER,
  NOVELTY_PAGE_SIZE,
  monthNovelties,
  monthTotals,
  noveltiesPage,
  type WorkerNovelties,
} from '../../projections/reports/novelties.ts';
import type { NoveltyFilter, NoveltyTotals } from '../../projections/reports/novelty-queries.ts';
import { CONTENT_TYPES, csvTable, xlsxTable, type Cell } from '../../app/book-formats.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { NOVELTY_COLUMNS, monthTotalsBody, noveltyLines, noveltyWorkerBody, totalLine } from '../novelty-formats.ts';
import { cutOffDay, monthScope } from '../month-scope.ts';
import { noveltiesQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';
import { pageCursor } from '../page-cursor.ts';

const cursor = pageCursor('nov1');

/** Each worker's lines, then the month's total line, added up from the workers as they went. */
async function* tableOf(month: string, workers: AsyncIterable<WorkerNovelties>): AsyncGenerator<Cell[][]> {
  const t: NoveltyTotals = { workers: 0, lines: 0, businessDays: 0, calendarDays: 0, value: 0 };
  for await (const w of workers) {
    t.workers++;
    t.lines += w.totals.lines;
    t.businessDays += w.totals.businessDays;
    t.calendarDays += w.totals.calendarDays;
    t.value += w.totals.value;
    yield noveltyLines(month, w);
  }
  yield [totalLine(month, t)];
}

/**
 * GET /vacaciones/novedades: what a payroll month must pay and report of vacations, one line per
 * record and month from the stored amortizations, with totals per worker and overall. JSON by
 * pages of workers (cursor `siguiente`); CSV and XLSX the whole month, streamed a page at a time.
 */
export function noveltyRoutes(app: FastifyInstance, deps: AppDeps) {
  route(app, ENDPOINTS.novelties, async (req, reply) => {
    const parsed = validate(noveltiesQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const month = input.periodo;
    const after = input.desde === undefined ? FIRST_WORKER : cursor.workerOf(input.desde, month);
    if (after === undefined) {
      return vacationError(reply, 400, MESSAGES.missingData, {
        desde: `El cursor no es uno que este servicio haya dado para el período ${month}: use el valor "siguiente" de la página anterior`,
      });
    }
    const filter: NoveltyFilter = { month, asOf: null };
    if (input.alCorte !== undefined) {
      const day = cutOffDay(input.alCorte);
      if (day < deps.today()) filter.asOf = day;
    }
    const scope = await monthScope(deps, req, reply, input);
    if (!scope) return reply;
    Object.assign(filter, scope);

    const format = input.formato ?? 'json';
    const head = {
      periodo: month,
      alCorte: filter.asOf,
      alcance: { subgerenciaId: filter.subgerenciaId ?? null, numeroDocumento: input.numeroDocumento ?? null },
    };
    reply.header('cache-control', 'no-store');
    if (format === 'json') {
      const limit = input.limite === undefined ? NOVELTY_PAGE_SIZE : Number(input.limite);
      // The novelties include every write this instance acknowledged before the request.
      const [page, totals] = await deps.readSide.fresh(() =>
        Promise.all([noveltiesPage(deps.db, deps.store, filter, after, limit), monthTotals(deps.db, deps.store, filter)]),
      );
      return {
        success: true,
        statusCode: 200,
        message: 'Novedades de vacaciones del período',
        data: {
          ...head,
          trabajadores: page.workers.map(noveltyWorkerBody),
          totales: monthTotalsBody(totals),
          siguiente: page.last === null ? null : cursor.of(month, page.last),
        },
      };
    }
    const workers = await deps.readSide.fresh(async () => monthNovelties(deps.db, deps.store, filter));
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the month novelties stopped while being written');
    reply
      .code(200)
      .header('content-type', CONTENT_TYPES[format])
      .header('content-disposition', `attachment; filename="novedades-vacaciones-${month}.${format}"`);
    const table = tableOf(month, workers);
    return reply.send(
      format === 'csv' ? csvTable(NOVELTY_COLUMNS, table, failed) : xlsxTable('Novedades de vacaciones', NOVELTY_COLUMNS, table, failed),
    );
  });
}
