import type { FastifyReply, FastifyRequest } from 'fastify';
import { todayInBogota } from '../domain/index.ts';
import { ReferenceRepository } from '../reference/repository.ts';
import type { AppDeps } from '../app/context.ts';
import { MESSAGES } from '../app/messages.ts';
import { vacationError } from './envelopes.ts';
import { responsibleAdministrator } from './responsible.ts';

/** The business day a cut-off names: a date as it is, a time as the date it falls on in Bogota. */
export const cutOffDay = (s: string): string => (s.length === 10 ? s : todayInBogota(new Date(s)));

/** What a payroll month's read is narrowed to: a subgerencia, a worker, or neither. */
export interface MonthScope {
  subgerenciaId?: string;
  workerId?: number;
}

/**
 * The subgerencia and the worker a month's read names, each found, then the responsible
 * administrator, in that order; each refusal answered with 404 naming its parameter, in the
 * vacation envelope. Undefined once a refusal is sent.
 */
export async function monthScope(
  deps: AppDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  input: { subgerenciaId?: string; numeroDocumento?: string; emailResponsable: string },
): Promise<MonthScope | undefined> {
  const scope: MonthScope = {};
  if (input.subgerenciaId !== undefined) {
    if (!(await new ReferenceRepository(deps.db).subgerenciaExists(input.subgerenciaId))) {
      return void vacationError(reply, 404, 'Subgerencia no encontrada', {
        subgerenciaId: `No existe la subgerencia ${input.subgerenciaId}`,
      });
    }
    scope.subgerenciaId = input.subgerenciaId;
  }
  if (input.numeroDocumento !== undefined) {
    const worker = await deps.reference.workerByDocument(input.numeroDocumento);
    if (!worker) {
      return void vacationError(reply, 404, MESSAGES.workerNotFound, {
        numeroDocumento: `No existe un trabajador con documento ${input.numeroDocumento}`,
      });
    }
    scope.workerId = worker.id;
  }
  if (!(await responsibleAdministrator(deps.reference, req, input.emailResponsable))) {
    return void vacationError(reply, 404, MESSAGES.userNotFound, { emailResponsable: 'No existe un usuario administrador con ese correo' });
  }
  return scope;
}
