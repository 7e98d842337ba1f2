import { ENDPOINTS, route } from '../endpoints.ts';
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asOfTime } from '../../integrity/as-of.ts';
import type { BundleSelection } from '../../integrity/bundle.ts';
import { canExport, exportBundle } from '../../integrity/export.ts';
import { verifyWorker } from '../../integrity/worker.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import type { AppDeps } from '../../app/context.ts';
import { BREAK_KIND_ES, breakInSpanish } from '../../app/chain-break-messages.ts';
import { MESSAGES } from '../../app/messages.ts';
import { lookupError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { responsibleMissing, responsibleOfQuery, workerRead } from '../responsible.ts';

export const AUDIT_MESSAGES = {
  selectionRequired: 'Indique numeroDocumento o subgerencia, no ambos.',
  subgerenciaNotFound: 'Subgerencia no encontrada.',
  badAsOf: 'fechaCorte debe ser una fecha YYYY-MM-DD o una hora ISO 8601.',
  exportNeedsPostgres:
    'La exportación de auditoría necesita el almacén de eventos PostgreSQL; esta instancia guarda sus eventos en KurrentDB.',
} as const;

/**
 * The auditor's endpoints: whether a worker's hash chains hold, and the bundle of a worker or a
 * subgerencia (docs/audit.md) streamed as it is read. Both need a key with the `auditoria`
 * scope, which keys never get by default, and an administrator as responsible.
 */
export function integrityRoutes(app: FastifyInstance, deps: AppDeps) {
  const { store } = deps;
  const admin = (fields: Fields, req: FastifyRequest) => responsibleOfQuery(deps.reference, fields, req);

  route(app, ENDPOINTS.auditVerify, async (req, reply) => {
    const read = await workerRead(deps.reference, req, reply);
    if (!read) return reply;
    const { worker } = read;
    const { streams, report } = await verifyWorker(store, worker.id);
    req.log.info(
      { action: 'VERIFICACION_AUDITORIA', documento: worker.documentNumber, ok: report.breaks.length === 0 },
      'hash chains verified',
    );
    return {
      success: true,
      statusCode: 200,
      asociadoId: worker.id,
      numeroDocumento: worker.documentNumber,
      verificado: report.breaks.length === 0,
      eventos: report.events,
      flujos: streams,
      rupturas: report.breaks.map((b) => ({
        flujo: b.stream,
        revision: b.revision,
        tipo: BREAK_KIND_ES[b.kind],
        esperado: b.expected,
        encontrado: b.found,
        detalle: breakInSpanish(b),
      })),
    };
  });

  route(app, ENDPOINTS.auditExport, async (req: FastifyRequest, reply: FastifyReply) => {
    const fields = new Fields(req.query);
    const doc = fields.get('numeroDocumento');
    const unit = fields.get('subgerencia');
    if ((doc === undefined) === (unit === undefined)) return lookupError(reply, 400, AUDIT_MESSAGES.selectionRequired);
    const cut = fields.get('fechaCorte');
    const asOf = cut === undefined ? undefined : asOfTime(cut);
    if (cut !== undefined && asOf === undefined) return lookupError(reply, 400, AUDIT_MESSAGES.badAsOf);
    const user = await admin(fields, req);
    if (user === 'missing') return responsibleMissing(reply, fields);
    let selection: BundleSelection;
    let name: string;
    if (doc !== undefined) {
      const worker = await deps.reference.workerByDocument(doc);
      if (!worker) return lookupError(reply, 404, MESSAGES.workerNotFound);
      selection = { kind: 'documento', documento: worker.documentNumber };
      name = `auditoria-${worker.documentNumber}`;
    } else {
      if (!(await new ReferenceRepository(deps.db).subgerenciaExists(unit!)))
        return lookupError(reply, 404, AUDIT_MESSAGES.subgerenciaNotFound);
      selection = { kind: 'subgerencia', subgerencia: unit! };
      name = `auditoria-subgerencia-${unit}`;
    }
    if (!user) return lookupError(reply, 404, MESSAGES.adminNotFound);

    // A bundle is read from one snapshot of the events where they are kept in a database.
    if (!canExport(store)) return lookupError(reply, 501, AUDIT_MESSAGES.exportNeedsPostgres);
    const body = new PassThrough();
    // Written as it is read: a failure after the first bytes can only cut the download short,
    // which leaves a bundle without its end record, one that never verifies.
    exportBundle(store, body, { selection, asOf, now: deps.now?.() }).then(
      (end) =>
        req.log.info(
          { action: 'EXPORTACION_AUDITORIA', selection, events: end.events, root: end.root, digest: end.digest },
          'audit bundle exported',
        ),
      (err: unknown) => {
        req.log.error({ err, selection }, 'audit bundle export failed');
        body.destroy(err as Error);
      },
    );
    return reply
      .type('application/gzip')
      .header('content-disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9._-]/g, '_')}.ndjson.gz"`)
      .send(body);
  });
}
