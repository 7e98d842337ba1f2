import type { CommandFailure } from '../commands/types.ts';
import { MESSAGES } from './messages.ts';
import { notOwnerMessage, ruleMessages } from './rule-messages.ts';

/** The use cases the API and the panel share. */
export type UseCase = 'calculate' | 'create' | 'edit' | 'delete' | 'approve' | 'interrupt';

/** A use case refused: the command's failure, or the caller lacking the permission it needs. */
export type Refusal = CommandFailure | { kind: 'forbidden'; permission: string };

export const PERMISSION_DELETE = 'vacaciones:eliminar';

/** What is said of a refusal: the API's status, message and `errors`, and the sentences a person reads. */
export interface RefusalWords {
  status: number;
  message: string;
  errors: Record<string, string> | string[];
  text: string[];
}

const NO_LIVE_RECORD = 'No existe un registro de vacaciones vigente con ese código.';

/** The one place a refusal is put into words, for the API's envelopes and the panel's pages alike. */
export function refusalWords(f: Refusal, op: UseCase, ctx: { documentNumber?: string; code?: string }): RefusalWords {
  switch (f.kind) {
    case 'worker_not_found':
      return {
        status: 404,
        message: MESSAGES.workerNotFound,
        errors: { documentoAsociado: `No existe un trabajador con documento ${ctx.documentNumber}` },
        text: [MESSAGES.workerNotFound],
      };
    case 'record_not_found':
      return {
        status: 404,
        message: MESSAGES.recordNotFound,
        errors: { codigoPila: `No existe un registro de vacaciones vigente con código ${ctx.code}` },
        text: [NO_LIVE_RECORD],
      };
    case 'not_owner': {
      const line = notOwnerMessage(f.code, f.documentNumber);
      return { status: 400, message: MESSAGES.inconsistent, errors: { inconsistencia: line }, text: [line] };
    }
    case 'rules': {
      const lines = ruleMessages(f.violations);
      const message = op === 'edit' ? MESSAGES.cannotEdit : op === 'interrupt' ? MESSAGES.cannotInterrupt : MESSAGES.cannotProcess;
      return { status: 422, message, errors: lines, text: lines };
    }
    case 'approved': {
      const message = op === 'edit' ? MESSAGES.editApproved : op === 'delete' ? MESSAGES.deleteApproved : MESSAGES.alreadyApproved;
      return { status: 422, message, errors: { detalle: `El registro ${ctx.code} ya fue aprobado y no admite cambios` }, text: [message] };
    }
    case 'busy':
      return { status: 503, message: MESSAGES.busy, errors: { detalle: 'Conflicto de concurrencia persistente' }, text: [MESSAGES.busy] };
    case 'out_of_scope':
      return {
        status: 403,
        message: MESSAGES.forbidden,
        errors: { emailUserResponsable: MESSAGES.notInUnits },
        text: [MESSAGES.notInUnits],
      };
    case 'forbidden':
      return {
        status: 403,
        message: MESSAGES.forbidden,
        errors: { emailUserResponsable: `El usuario no tiene el permiso ${f.permission}` },
        text: ['Su usuario no tiene el permiso para eliminar vacaciones.'],
      };
  }
}

/**
 * What a failed edit's audit record and log line say of it: what the caller was told (the rules
 * and the owner mismatch line by line, else the message), or, for an internal failure, where the
 * detail is.
 */
export function editFailureDetail(f: CommandFailure | { kind: 'error' }, requestId: string): string[] {
  if (f.kind === 'error') return [`${MESSAGES.internal} Solicitud ${requestId}`];
  const w = refusalWords(f, 'edit', {});
  return f.kind === 'rules' || f.kind === 'not_owner' ? w.text : [w.message];
}

/** Whether this person may delete a vacation record. */
export const mayDelete = (user: { permissions: readonly string[] }) => user.permissions.includes(PERMISSION_DELETE);
