import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { VacationView } from '../../projections/index.ts';
import { shownVacations } from '../../projections/vacations/shown.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { lookupError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { responsibleMissing, responsibleOfQuery, workerRead } from '../responsible.ts';

/**
 * Read endpoints over the read models: a worker's vacations, one record, and audit history.
 * Same key, scope and administrator check as the rest.
 */
export function readRoutes(app: FastifyInstance, deps: AppDeps) {
  const admin = (fields: Fields, req: FastifyRequest) => responsibleOfQuery(deps.reference, fields, req);
  const marked = (views: VacationView[]) =>
    shownVacations(views, async (doc) => (await deps.reference.workerFileByDocument(doc))?.contracts ?? []);

  route(app, ENDPOINTS.list, async (req, reply) => {
    const read = await workerRead(deps.reference, req, reply);
    if (!read) return reply;
    const { fields, worker } = read;
    const includeDeleted = fields.get('incluirEliminadas') === '1';
    const vacaciones = await marked(await deps.readSide.vacationsOfWorker(worker.id, { includeDeleted }));
    return { success: true, statusCode: 200, asociadoId: worker.id, vacaciones };
  });

  route(app, ENDPOINTS.record, async (req, reply) => {
    const fields = new Fields(req.query);
    const user = await admin(fields, req);
    if (user === 'missing') return responsibleMissing(reply, fields);
    if (!user) return lookupError(reply, 404, MESSAGES.adminNotFound);
    const code = (req.params as { codigoPila: string }).codigoPila;
    const record = code.includes('\u0000') ? null : await deps.readSide.vacationByCode(code);
    if (!record) return lookupError(reply, 404, MESSAGES.recordNotFound);
    return { success: true, statusCode: 200, vacacion: (await marked([record]))[0] };
  });

  route(app, ENDPOINTS.audit, async (req, reply) => {
    const fields = new Fields(req.query);
    const user = await admin(fields, req);
    if (user === 'missing') return responsibleMissing(reply, fields);
    const code = fields.get('codigoPila');
    const doc = fields.get('numeroDocumento');
    if (!code && !doc) return lookupError(reply, 400, 'Indique numeroDocumento o codigoPila.');
    if (!user) return lookupError(reply, 404, MESSAGES.adminNotFound);
    if (code) return { success: true, statusCode: 200, auditoria: await deps.readSide.auditOfCode(code) };
    const worker = await deps.reference.workerByDocument(doc!);
    if (!worker) return lookupError(reply, 404, MESSAGES.workerNotFound);
    const limit = Math.min(Math.max(Number(fields.get('limite') ?? 200) || 200, 1), 1000);
    return { success: true, statusCode: 200, asociadoId: worker.id, auditoria: await deps.readSide.auditOfWorker(worker.id, { limit }) };
  });
}
