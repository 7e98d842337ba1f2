import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance } from 'fastify';
import { monthPaidVacations, type ElectronicPayrollFilter } from '../../projections/reports/electronic-payroll.ts';
import type { AppDeps } from '../../app/context.ts';
import { jsonFragments, xmlFragments, type FragmentHead } from '../../app/dian/fragment.ts';
import { MESSAGES } from '../../app/messages.ts';
import { cutOffDay, monthScope } from '../month-scope.ts';
import { vacationError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { electronicPayrollQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';
import { primed } from './book.ts';

const CONTENT_TYPES = { xml: 'application/xml; charset=utf-8', json: 'application/json; charset=utf-8' } as const;

/**
 * GET /vacaciones/nomina-electronica: the `Vacaciones` element of the DIAN's electronic payroll
 * document for each worker with vacations paid in a month (those that start in it), as the
 * register stood at a cut-off; XML (by default) or JSON, streamed from the register a page at a time.
 */
export function electronicPayrollRoutes(app: FastifyInstance, deps: AppDeps) {
  route(app, ENDPOINTS.electronicPayroll, async (req, reply) => {
    const parsed = validate(electronicPayrollQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const scope = await monthScope(deps, req, reply, input);
    if (!scope) return reply;
    const asOf = input.alCorte === undefined ? deps.today() : cutOffDay(input.alCorte);
    const filter: ElectronicPayrollFilter = { month: input.periodo, asOf, ...scope };

    const format = input.formato ?? 'xml';
    const head: FragmentHead = {
      periodo: input.periodo,
      alCorte: asOf,
      alcance: { subgerenciaId: filter.subgerenciaId ?? null, numeroDocumento: input.numeroDocumento ?? null },
    };
    // The register includes every write this instance acknowledged before the request.
    const workers = await deps.readSide.fresh(() => primed(monthPaidVacations(deps.db, filter)));
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the electronic payroll fragments stopped while being written');
    reply.code(200).header('content-type', CONTENT_TYPES[format]).header('cache-control', 'no-store');
    if (format === 'xml') reply.header('content-disposition', `attachment; filename="nomina-electronica-vacaciones-${input.periodo}.xml"`);
    const body = format === 'xml' ? xmlFragments(head, workers) : jsonFragments(head, workers);
    body.on('error', failed);
    return reply.send(body);
  });
}
