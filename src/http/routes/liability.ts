import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lastDayOfMonth } from '../../domain/index.ts';
import {
  FIRST_WORKER,
  LIABILITY_PAGE_SIZE,
  firstPageAndTotals,
  liabilityLines,
  liabilityTally,
  movementLines,
  movementTally,
  pageOf,
  type LiabilityScope,
} from '../../projections/reports/liability.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { CONTENT_TYPES, csvTable, xlsxTable, type Cell } from '../../app/book-formats.ts';
import type { AppDeps } from '../../app/context.ts';
import {
  LIABILITY_TABLE,
  MOVEMENT_TABLE,
  liabilityTableRows,
  liabilityTotalsBody,
  liabilityWorkerBody,
  movementTableRows,
  movementTotalsBody,
  movementWorkerBody,
  type Table,
} from '../../app/liability-formats.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { monthScope } from '../month-scope.ts';
import { pageCursor } from '../page-cursor.ts';
import { liabilityMovementQuery, liabilityQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';

const liabilityCursor = pageCursor('pas1');
const movementCursor = pageCursor('mov1');

interface ScopeInput {
  emailResponsable: string;
  subgerenciaId?: string;
  contratoEmpresaId?: string;
  numeroDocumento?: string;
  desde?: string;
  limite?: string;
}

/**
 * The scope a request names, each part found (404 naming the parameter otherwise), and the worker
 * its cursor continues after (400 for a cursor of another report); undefined once refused.
 */
async function scopeOf(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  input: ScopeInput,
  after: () => number | undefined,
  key: string,
): Promise<{ scope: LiabilityScope; after: number } | undefined> {
  const from = input.desde === undefined ? FIRST_WORKER : after();
  if (from === undefined) {
    return void vacationError(reply, 400, MESSAGES.missingData, {
      desde: `El cursor no es uno que este servicio haya dado para ${key}: use el valor "siguiente" de la página anterior`,
    });
  }
  const scope: LiabilityScope | undefined = await monthScope(deps, req, reply, input);
  if (!scope) return undefined;
  if (input.contratoEmpresaId !== undefined) {
    const id = Number(input.contratoEmpresaId);
    if (!(await new ReferenceRepository(deps.db).companyContract(id))) {
      return void vacationError(reply, 404, 'Contrato de empresa no encontrado', {
        contratoEmpresaId: `No existe el contrato de empresa ${input.contratoEmpresaId}`,
      });
    }
    scope.companyContractId = id;
  }
  return { scope, after: from };
}

const alcance = (input: ScopeInput) => ({
  subgerenciaId: input.subgerenciaId ?? null,
  contratoEmpresaId: input.contratoEmpresaId === undefined ? null : Number(input.contratoEmpresaId),
  numeroDocumento: input.numeroDocumento ?? null,
});

/** A CSV or XLSX answer of a whole scope, streamed as its workers are figured. */
function sendTable(
  req: FastifyRequest,
  reply: FastifyReply,
  format: 'csv' | 'xlsx',
  name: string,
  title: string,
  table: Table,
  rows: AsyncIterable<Cell[][]>,
) {
  const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, `the ${name} stopped while being written`);
  reply.code(200).header('content-type', CONTENT_TYPES[format]).header('content-disposition', `attachment; filename="${name}.${format}"`);
  return reply.send(format === 'csv' ? csvTable(table.columns, rows, failed) : xlsxTable(title, table.columns, rows, failed));
}

const limitOf = (input: ScopeInput) => (input.limite === undefined ? LIABILITY_PAGE_SIZE : Number(input.limite));

/**
 * GET /vacaciones/pasivo: what the company owes in vacations accrued and not yet enjoyed or paid
 * on a cut-off date, per worker with totals per subgerencia, company contract and company; and
 * GET /vacaciones/pasivo/movimiento: how it moved over a month. JSON by pages of workers (the
 * totals, which read the whole scope, come with the first page); CSV and XLSX the whole scope.
 */
export function liabilityRoutes(app: FastifyInstance, deps: AppDeps) {
  route(app, ENDPOINTS.liability, async (req, reply) => {
    const parsed = validate(liabilityQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const date = input.alCorte;
    const found = await scopeOf(deps, req, reply, input, () => liabilityCursor.workerOf(input.desde!, date), `el corte ${date}`);
    if (!found) return reply;
    const { scope, after } = found;
    reply.header('cache-control', 'no-store');
    const lines = (size?: number) => liabilityLines(deps.db, deps.calendar, scope, date, { after, size });
    const format = input.formato ?? 'json';
    if (format !== 'json') {
      await deps.readSide.fresh(async () => {});
      const title = 'Pasivo vacacional';
      return sendTable(req, reply, format, `pasivo-vacaciones-${date}`, title, LIABILITY_TABLE, liabilityTableRows(date, lines()));
    }
    const limit = limitOf(input);
    // The liability includes every write this instance acknowledged before the request.
    const page = await deps.readSide.fresh(async () =>
      after === FIRST_WORKER
        ? firstPageAndTotals(lines(), limit, liabilityTally(), (l) => l.liability)
        : { ...(await pageOf(lines(limit + 1), limit)), totals: null },
    );
    return {
      success: true,
      statusCode: 200,
      message: 'Pasivo vacacional al corte',
      data: {
        alCorte: date,
        proyeccion: date > deps.today(),
        alcance: alcance(input),
        trabajadores: page.lines.map(liabilityWorkerBody),
        totales: page.totals === null ? null : liabilityTotalsBody(page.totals),
        siguiente: page.last === null ? null : liabilityCursor.of(date, page.last),
      },
    };
  });

  route(app, ENDPOINTS.liabilityMovement, async (req, reply) => {
    const parsed = validate(liabilityMovementQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const month = input.periodo;
    const found = await scopeOf(deps, req, reply, input, () => movementCursor.workerOf(input.desde!, month), `el período ${month}`);
    if (!found) return reply;
    const { scope, after } = found;
    reply.header('cache-control', 'no-store');
    const lines = (size?: number) => movementLines(deps.db, deps.calendar, scope, month, { after, size });
    const format = input.formato ?? 'json';
    if (format !== 'json') {
      await deps.readSide.fresh(async () => {});
      const title = 'Movimiento del pasivo';
      return sendTable(
        req,
        reply,
        format,
        `pasivo-vacaciones-movimiento-${month}`,
        title,
        MOVEMENT_TABLE,
        movementTableRows(month, lines()),
      );
    }
    const limit = limitOf(input);
    const page = await deps.readSide.fresh(async () =>
      after === FIRST_WORKER
        ? firstPageAndTotals(lines(), limit, movementTally(), (l) => l.movement)
        : { ...(await pageOf(lines(limit + 1), limit)), totals: null },
    );
    const last = lastDayOfMonth(month);
    return {
      success: true,
      statusCode: 200,
      message: 'Movimiento del pasivo vacacional del período',
      data: {
        periodo: month,
        desde: `${month}-01`,
        hasta: last,
        proyeccion: last > deps.today(),
        alcance: alcance(input),
        trabajadores: page.lines.map(movementWorkerBody),
        totales: page.totals === null ? null : movementTotalsBody(page.totals),
        siguiente: page.last === null ? null : movementCursor.of(month, page.last),
      },
    };
  });
}
