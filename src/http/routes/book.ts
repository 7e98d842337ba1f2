import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance } from 'fastify';
import { registerBook, type BookScope } from '../../projections/reports/book.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { CONTENT_TYPES, csvBook, jsonBook, xlsxBook } from '../../app/book-formats.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { responsibleAdministrator } from '../responsible.ts';
import { bookQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';

/**
 * The workers as an async iterable whose first one has already been read: a failure of the first
 * read is answered in the envelope, before any byte of the register is sent.
 */
export async function primed<T>(workers: AsyncGenerator<T>): Promise<AsyncIterable<T>> {
  const first = await workers.next();
  return {
    async *[Symbol.asyncIterator]() {
      if (first.done) return;
      yield first.value;
      yield* workers;
    },
  };
}

/**
 * GET /vacaciones/libro: the vacation register (libro de vacaciones, CST art. 187 §3) of the whole
 * company, one subgerencia or one worker, over a date range, as it stood at the end of a given
 * day, in JSON, CSV or XLSX, streamed from the read models a page of workers at a time.
 */
export function bookRoutes(app: FastifyInstance, deps: AppDeps) {
  route(app, ENDPOINTS.book, async (req, reply) => {
    const parsed = validate(bookQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    if (input.numeroDocumento !== undefined && input.subgerenciaId !== undefined) {
      return vacationError(reply, 400, MESSAGES.missingData, {
        subgerenciaId: 'Indique numeroDocumento o subgerenciaId, no ambos',
      });
    }
    if (input.fechaDesde !== undefined && input.fechaHasta !== undefined && input.fechaDesde > input.fechaHasta) {
      return vacationError(reply, 400, MESSAGES.missingData, {
        fechaHasta: `fechaHasta (${input.fechaHasta}) es anterior a fechaDesde (${input.fechaDesde})`,
      });
    }
    let scope: BookScope = { kind: 'empresa' };
    if (input.numeroDocumento !== undefined) {
      if (!(await deps.reference.workerByDocument(input.numeroDocumento))) {
        return vacationError(reply, 404, MESSAGES.workerNotFound, {
          numeroDocumento: `No existe un trabajador con documento ${input.numeroDocumento}`,
        });
      }
      scope = { kind: 'trabajador', documentNumber: input.numeroDocumento };
    } else if (input.subgerenciaId !== undefined) {
      if (!(await new ReferenceRepository(deps.db).subgerenciaExists(input.subgerenciaId))) {
        return vacationError(reply, 404, 'Subgerencia no encontrada', {
          subgerenciaId: `No existe la subgerencia ${input.subgerenciaId}`,
        });
      }
      scope = { kind: 'subgerencia', subgerenciaId: input.subgerenciaId };
    }
    if (!(await responsibleAdministrator(deps.reference, req, input.emailResponsable))) {
      return vacationError(reply, 404, MESSAGES.userNotFound, { emailResponsable: 'No existe un usuario administrador con ese correo' });
    }

    const format = input.formato ?? 'json';
    const asOf = input.fechaCorte ?? deps.today();
    const options = { scope, asOf, current: asOf >= deps.today(), from: input.fechaDesde ?? null, to: input.fechaHasta ?? null };
    // The register includes every write this instance acknowledged before the request.
    const workers = await deps.readSide.fresh(() => primed(registerBook(deps.db, options)));
    const failed = (err: unknown) => req.log.error({ err, reqId: req.id }, 'the vacation register stopped while being written');
    reply.code(200).header('content-type', CONTENT_TYPES[format]).header('cache-control', 'no-store');
    if (format !== 'json') reply.header('content-disposition', `attachment; filename="libro-vacaciones-${asOf}.${format}"`);
    if (format === 'xlsx') return reply.send(xlsxBook(workers, failed));
    const body =
      format === 'csv'
        ? csvBook(workers, failed)
        : jsonBook(
            {
              fechaCorte: asOf,
              fechaDesde: options.from,
              fechaHasta: options.to,
              alcance: {
                tipo: scope.kind,
                subgerenciaId: scope.kind === 'subgerencia' ? scope.subgerenciaId : null,
                numeroDocumento: scope.kind === 'trabajador' ? scope.documentNumber : null,
              },
            },
            workers,
          );
    if (format === 'json') body.on('error', failed);
    return reply.send(body);
  });
}
