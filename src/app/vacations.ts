import { recordEditFailure } from '../commands/audit.ts';
import type { Changed, Created, Edited, InterruptionRequest, Interrupted } from '../commands/decide.ts';
import type { EditOutcome } from '../commands/vacation-commands.ts';
import type { Actor, Outcome, VacationFigures, VacationRequest } from '../commands/types.ts';
import type { User } from '../reference/repository.ts';
import type { Position } from '../store/types.ts';
import type { AppDeps } from './context.ts';
import { PERMISSION_DELETE, editFailureDetail, mayDelete, refusalWords, type Refusal, type UseCase } from './refusals.ts';

/** Where a use case writes its log line: the request's logger, so the line carries the request id. */
export interface UseCaseLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Who asks, as a use case needs it: the events' actor, the person (for permissions) and where to log. */
export interface Call {
  actor: Actor;
  user: User;
  log: UseCaseLog;
}

export type UseCaseOutcome<T> = { ok: true; value: T } | ({ ok: false } & Refusal);

/** A use case that threw: the caller answers it as an internal failure, after the use case has logged it. */
export class UseCaseError extends Error {
  constructor(
    readonly op: UseCase,
    readonly error: unknown,
  ) {
    super(`${op} failed`, { cause: error });
  }
}

type Deps = Pick<AppDeps, 'commands' | 'readSide' | 'metrics' | 'audits' | 'today' | 'now'>;

/**
 * The vacation use cases, the same for the API and the panel: each runs the permission check,
 * the command, the read-your-writes note, the outcome metric, its log line and, for a failed
 * edit, the record in the worker's audit stream, once. Callers only parse input and render the
 * typed outcome (refusals are put into words by refusalWords).
 */
export class VacationUseCases {
  private readonly now: () => Date;

  constructor(private readonly deps: Deps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** Nothing is written: the figures of a request, or why it would be refused. */
  calculate(documentNumber: string, request: VacationRequest): Promise<Outcome<VacationFigures>> {
    return this.deps.commands.calculate(documentNumber, request);
  }

  async create(call: Call, documentNumber: string, request: VacationRequest): Promise<UseCaseOutcome<Created>> {
    const r = await this.deps.commands.create(documentNumber, request, call.actor);
    if (!this.counted('create', r)) return r;
    const { record } = r.value.value;
    call.log.info(
      { action: 'CREACION', codigoPila: record.codigoPila, id: record.recordId, responsable: call.user.email, source: call.actor.source },
      'vacation created',
    );
    return { ok: true, value: r.value.value };
  }

  /**
   * A failed edit is logged as ERROR_EDICION with the old code, the id allotted to the new record
   * and the reason; once its code named a known record it is also recorded in that worker's
   * audit stream, so the record's trail shows it. An edit that threw is rethrown as UseCaseError
   * once recorded.
   */
  async edit(call: Call, code: string, documentNumber: string, request: VacationRequest): Promise<UseCaseOutcome<Edited>> {
    const r = await this.deps.commands.edit(code, documentNumber, request, call.actor);
    this.deps.metrics?.commandOutcome('edit', r.ok ? 'ok' : r.kind);
    if (!r.ok) {
      await this.editFailed(call, code, documentNumber, request, r);
      if (r.kind === 'error') throw new UseCaseError('edit', r.error);
      return r;
    }
    this.deps.readSide.noteWrite(r.value.position);
    const { record } = r.value.value;
    call.log.info(
      {
        action: 'EDICION_EXITOSA',
        codigoPilaAnterior: code,
        codigoPilaNuevo: record.codigoPila,
        idNuevo: record.recordId,
        responsable: call.user.email,
        source: call.actor.source,
      },
      'vacation edited',
    );
    return { ok: true, value: r.value.value };
  }

  /**
   * Only a person with vacaciones:eliminar deletes. A deletion refused after its request was read
   * is logged as ERROR_ELIMINACION with its reason, as one done is logged as ELIMINACION_EXITOSA.
   */
  async delete(call: Call, code: string): Promise<UseCaseOutcome<Changed>> {
    const refused = (status: number, reason: string) =>
      call.log.warn(
        {
          action: 'ERROR_ELIMINACION',
          idEliminado: null,
          codigoPila: code,
          responsable: call.user.email,
          status,
          reason,
          source: call.actor.source,
        },
        'deletion refused',
      );
    const refusal = (f: Refusal) => {
      const w = refusalWords(f, 'delete', { code });
      const denied = f.kind === 'forbidden' || f.kind === 'out_of_scope';
      refused(w.status, denied ? `${w.message}: ${Object.values(w.errors).join(' ')}` : w.message);
      return { ok: false as const, ...f };
    };
    if (!mayDelete(call.user)) return refusal({ kind: 'forbidden', permission: PERMISSION_DELETE });
    let r: Outcome<{ value: Changed; position: Position }>;
    try {
      r = await this.deps.commands.delete(code, call.actor);
    } catch (err) {
      call.log.error(
        { err, action: 'ERROR_ELIMINACION', codigoPila: code, responsable: call.user.email, reason: (err as Error).message },
        'deletion failed',
      );
      throw new UseCaseError('delete', err);
    }
    if (!this.counted('delete', r)) return refusal(r);
    const { record, at } = r.value.value;
    call.log.info(
      {
        action: 'ELIMINACION_EXITOSA',
        idEliminado: record.recordId,
        codigoPila: code,
        responsable: call.user.email,
        fecha: at,
        source: call.actor.source,
      },
      'vacation deleted',
    );
    return { ok: true, value: r.value.value };
  }

  async approve(call: Call, code: string): Promise<UseCaseOutcome<Changed>> {
    const r = await this.deps.commands.approve(code, call.actor);
    if (!this.counted('approve', r)) return this.scopeRefused(call, 'approve', code, r);
    call.log.info({ action: 'APROBACION', codigoPila: code, responsable: call.user.email, source: call.actor.source }, 'vacation approved');
    return { ok: true, value: r.value.value };
  }

  /** CST art. 188: an approved, enjoyed vacation in course stops on a business day; the days not enjoyed go back to the balance. */
  async interrupt(call: Call, code: string, request: InterruptionRequest): Promise<UseCaseOutcome<Interrupted>> {
    const r = await this.deps.commands.interrupt(code, request, call.actor);
    if (!this.counted('interrupt', r)) return this.scopeRefused(call, 'interrupt', code, r);
    call.log.info(
      {
        action: 'INTERRUPCION',
        codigoPila: code,
        fechaInterrupcion: request.date,
        motivo: request.reason,
        responsable: call.user.email,
        source: call.actor.source,
      },
      'vacation interrupted',
    );
    return { ok: true, value: r.value.value };
  }

  /** A refusal answered as it is; one for the actor's scope is logged too, as the panel logs a role's. */
  private scopeRefused<F extends Refusal>(call: Call, op: UseCase, code: string, f: F): F {
    if (f.kind === 'out_of_scope')
      call.log.warn(
        { action: op, codigoPila: code, responsable: call.user.email, scope: call.actor.scope, source: call.actor.source },
        'command refused: the record is outside the actor scope',
      );
    return f;
  }

  /** Counts the outcome and, for a write done, notes it for read-your-writes. */
  private counted<T>(
    op: UseCase,
    r: Outcome<{ value: T; position: Position }>,
  ): r is { ok: true; value: { value: T; position: Position } } {
    this.deps.metrics?.commandOutcome(op, r.ok ? 'ok' : r.kind);
    if (r.ok) this.deps.readSide.noteWrite(r.value.position);
    return r.ok;
  }

  private async editFailed(
    call: Call,
    code: string,
    documentNumber: string,
    request: VacationRequest,
    r: Extract<EditOutcome, { ok: false }>,
  ) {
    const newRecordId = r.attempt?.newRecordId ?? null;
    const detail = editFailureDetail(r, call.actor.requestId ?? '');
    const line = {
      action: 'ERROR_EDICION',
      codigoPilaAnterior: code,
      idNuevo: newRecordId,
      reason: r.kind,
      detail,
      responsable: call.user.email,
      source: call.actor.source,
    };
    if (r.kind === 'error') call.log.error({ ...line, err: r.error }, 'edit failed');
    else call.log.warn(line, 'edit refused');
    // Without a known record (an unknown code or document) there is no trail to write to; an
    // actor outside the record's scope leaves none in it.
    if (!r.attempt || r.kind === 'worker_not_found' || r.kind === 'out_of_scope') return;
    const failure = { code, attempt: r.attempt, reason: r.kind, detail, documentNumber, request };
    try {
      await recordEditFailure(this.deps.audits, call.actor, failure, this.deps.today(), this.now());
    } catch (err) {
      call.log.error({ err, codigoPilaAnterior: code, idNuevo: newRecordId }, 'a failed edit could not be recorded in the audit stream');
    }
  }
}
