import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordEditFailure } from '../../commands/audit.ts';
import type { EditOutcome } from '../../commands/handler.ts';
import type { Actor, CommandFailure, VacationFigures } from '../../commands/types.ts';
import { actorOf } from '../../app/actor.ts';
import type { VacationRecord } from '../../events/types.ts';
import { toDecimal2, Days360 } from '../../domain/index.ts';
import type { User } from '../../reference/repository.ts';
import { methodNotAllowed } from '../auth.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError, vacationSuccess } from '../envelopes.ts';
import { Fields, bogotaTimestamp, flagText, maskEmail } from '../../app/fields.ts';
import { responsibleAdministrator } from '../responsible.ts';
import { notOwnerMessage, ruleMessages } from '../../app/rule-messages.ts';
import { withIdempotency } from '../idempotency.ts';
import { parseCodeInput, parseCreateInput, parseEditInput, parseInterruptInput, type VacationInput } from '../../app/vacation-input.ts';

const cfg = { envelope: 'vacation', scope: 'vacaciones' } as const;

function recordBody(r: VacationRecord) {
  return {
    vacAsociado: r.workerId,
    vacFechaInicio: r.startDate,
    vacFechaFinal: r.endDate,
    vacDiasVacaciones: r.businessDays,
    vacDiasCalendario: r.calendarDays,
    vacSalario: r.salary,
    vacValorTotal: r.totalValue,
    vacCodigoPila: r.codigoPila,
  };
}

function calculationBody(f: VacationFigures) {
  return {
    vacAsociado: f.workerId,
    vacFechaInicio: f.startDate,
    vacFechaFinal: f.endDate,
    vacDiasVacaciones: f.days,
    vacDiasCalendario: f.calendarDays,
    vacSalario: f.salary,
    vacValorTotal: f.totalValue,
    vacPagado: flagText(f.advance),
    vacLaboraSabado: flagText(f.worksSaturday),
    vacCompensado: flagText(f.compensated),
    vacSeguridadEnNomina: flagText(f.socialSecurityInPayroll),
    DiasDisponibles: toDecimal2(Days360.fromUnits(f.availableUnits)),
    diasCausados: toDecimal2(Days360.fromUnits(f.accruedUnits)),
  };
}

/** What a failed edit's record and log say of it: what the caller was told, or where the detail is. */
function editFailureDetail(r: Extract<EditOutcome, { ok: false }>, requestId: string): string[] {
  switch (r.kind) {
    case 'rules':
      return ruleMessages(r.violations);
    case 'not_owner':
      return [notOwnerMessage(r.code, r.documentNumber)];
    case 'record_not_found':
      return [MESSAGES.recordNotFound];
    case 'worker_not_found':
      return [MESSAGES.workerNotFound];
    case 'approved':
      return [MESSAGES.editApproved];
    case 'busy':
      return [MESSAGES.busy];
    case 'error':
      return [`${MESSAGES.internal} Solicitud ${requestId}`];
  }
}

export function vacationRoutes(app: FastifyInstance, deps: AppDeps) {
  const now = deps.now ?? (() => new Date());

  const responsible = (req: FastifyRequest, email: string): Promise<User | null> => responsibleAdministrator(deps.reference, req, email);

  const userNotFound = (reply: FastifyReply) =>
    vacationError(reply, 404, MESSAGES.userNotFound, { emailUserResponsable: 'No existe un usuario administrador con ese correo' });

  /**
   * Delete and approve name a record only by its code, so both check the body and the
   * responsible administrator the same way before the handler runs. `onUnknownUser` hears of a
   * request refused for its administrator.
   */
  function postByCode(
    url: string,
    handle: (req: FastifyRequest, reply: FastifyReply, code: string, user: User) => Promise<unknown>,
    onUnknownUser?: (req: FastifyRequest, code: string, email: string) => void,
  ) {
    app.post(url, { config: cfg }, async (req, reply) =>
      withIdempotency(deps, req, reply, async () => {
        const parsed = parseCodeInput(new Fields(req.body));
        if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
        const user = await responsible(req, parsed.value.email);
        if (!user) {
          onUnknownUser?.(req, parsed.value.code, parsed.value.email);
          return userNotFound(reply);
        }
        return handle(req, reply, parsed.value.code, user);
      }),
    );
  }

  /**
   * A deletion refused after its request was read (unknown administrator, no permission, no such
   * record, approved, persistent conflict) is logged as ERROR_ELIMINACION with its reason, as a
   * deletion done is logged as ELIMINACION_EXITOSA.
   */
  const deletionRefused = (req: FastifyRequest, code: string, responsable: string | null, status: number, reason: string) =>
    req.log.warn({ action: 'ERROR_ELIMINACION', idEliminado: null, codigoPila: code, responsable, status, reason }, 'deletion refused');
  const REFUSAL: Partial<Record<CommandFailure['kind'], [number, string]>> = {
    record_not_found: [404, MESSAGES.recordNotFound],
    approved: [422, MESSAGES.deleteApproved],
    busy: [503, MESSAGES.busy],
  };

  function failure(
    reply: FastifyReply,
    f: CommandFailure,
    ctx: { documentNumber?: string; code?: string; op: 'create' | 'edit' | 'delete' | 'approve' | 'interrupt' },
  ) {
    deps.metrics?.commandOutcome(ctx.op, f.kind);
    switch (f.kind) {
      case 'worker_not_found':
        return vacationError(reply, 404, MESSAGES.workerNotFound, {
          documentoAsociado: `No existe un trabajador con documento ${ctx.documentNumber}`,
        });
      case 'record_not_found':
        return vacationError(reply, 404, MESSAGES.recordNotFound, {
          codigoPila: `No existe un registro de vacaciones vigente con código ${ctx.code}`,
        });
      case 'not_owner':
        return vacationError(reply, 400, MESSAGES.inconsistent, { inconsistencia: notOwnerMessage(f.code, f.documentNumber) });
      case 'rules':
        return vacationError(
          reply,
          422,
          ctx.op === 'edit' ? MESSAGES.cannotEdit : ctx.op === 'interrupt' ? MESSAGES.cannotInterrupt : MESSAGES.cannotProcess,
          ruleMessages(f.violations),
        );
      case 'approved': {
        const detalle = `El registro ${ctx.code} ya fue aprobado y no admite cambios`;
        if (ctx.op === 'edit') return vacationError(reply, 422, MESSAGES.editApproved, { detalle });
        if (ctx.op === 'delete') return vacationError(reply, 422, MESSAGES.deleteApproved, { detalle });
        return vacationError(reply, 422, MESSAGES.alreadyApproved, { detalle });
      }
      case 'busy':
        reply.header('retry-after', '1');
        return vacationError(reply, 503, MESSAGES.busy, { detalle: 'Conflicto de concurrencia persistente' });
    }
  }

  /**
   * A failed edit is logged as ERROR_EDICION with the old code, the id allotted to the new record
   * and the reason; once its code named a known record, it is also recorded in that worker's
   * audit stream, so the record's trail shows it. A record that cannot be written is logged, and
   * the caller still gets the edit's own answer.
   */
  async function editFailed(req: FastifyRequest, actor: Actor, code: string, input: VacationInput, r: Extract<EditOutcome, { ok: false }>) {
    const newRecordId = r.attempt?.newRecordId ?? null;
    const detail = editFailureDetail(r, req.id);
    const line = {
      action: 'ERROR_EDICION',
      codigoPilaAnterior: code,
      idNuevo: newRecordId,
      reason: r.kind,
      detail,
      responsable: actor.userEmail,
    };
    if (r.kind === 'error') req.log.error({ ...line, err: r.error }, 'edit failed');
    else req.log.warn(line, 'edit refused');
    // Without a known record (an unknown code or document) there is no trail to write to.
    if (!r.attempt || r.kind === 'worker_not_found') return;
    const failure = { code, attempt: r.attempt, reason: r.kind, detail, documentNumber: input.documentNumber, request: input.request };
    try {
      await recordEditFailure(deps.audits, actor, failure, deps.today(), now());
    } catch (err) {
      req.log.error({ err, codigoPilaAnterior: code, idNuevo: newRecordId }, 'a failed edit could not be recorded in the audit stream');
    }
  }

  app.post('/vacaciones/calculate', { config: cfg }, async (req, reply) => {
    const parsed = parseCreateInput(new Fields(req.body));
    if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
    const { documentNumber, email, request } = parsed.value;
    if (!(await responsible(req, email))) return userNotFound(reply);
    const r = await deps.commands.calculate(documentNumber, request);
    if (!r.ok) return failure(reply, r, { documentNumber, op: 'create' });
    return vacationSuccess(reply, 200, 'Cálculo de vacaciones realizado correctamente', calculationBody(r.value));
  });

  app.post('/vacaciones/add', { config: cfg }, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseCreateInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { documentNumber, email, request } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      const r = await deps.commands.create(documentNumber, request, actorOf(req, user, { write: true }));
      if (!r.ok) return failure(reply, r, { documentNumber, op: 'create' });
      deps.metrics?.commandOutcome('create', 'ok');
      deps.readSide.noteWrite(r.value.position);
      const record = r.value.value.record;
      return vacationSuccess(reply, 201, 'Vacaciones registradas correctamente', {
        codigo_pila: record.codigoPila,
        id: record.recordId,
        vacaciones: recordBody(record),
      });
    }),
  );

  app.post('/vacaciones/edit', { config: cfg }, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseEditInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { code, documentNumber, email, request } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      const actor = actorOf(req, user, { write: true });
      const r = await deps.commands.edit(code, documentNumber, request, actor);
      if (!r.ok) {
        await editFailed(req, actor, code, parsed.value, r);
        // Answered by the error handler as any other failure (500, or 503 for an outage).
        if (r.kind === 'error') throw r.error;
        return failure(reply, r, { documentNumber, code, op: 'edit' });
      }
      deps.metrics?.commandOutcome('edit', 'ok');
      deps.readSide.noteWrite(r.value.position);
      const record = r.value.value.record;
      req.log.info(
        {
          action: 'EDICION_EXITOSA',
          codigoPilaAnterior: code,
          codigoPilaNuevo: record.codigoPila,
          idNuevo: record.recordId,
          responsable: user.email,
        },
        'vacation edited',
      );
      return vacationSuccess(reply, 200, 'Vacaciones editadas correctamente', {
        id: record.recordId,
        codigoPilaAnterior: code,
        codigoPilaNuevo: record.codigoPila,
        fechaEdicion: bogotaTimestamp(new Date(record.createdAt)),
        vacaciones: recordBody(record),
      });
    }),
  );

  postByCode(
    '/vacaciones/delete',
    async (req, reply, code, user) => {
      if (!user.permissions.includes('vacaciones:eliminar')) {
        const detail = 'El usuario no tiene el permiso vacaciones:eliminar';
        deletionRefused(req, code, user.email, 403, `${MESSAGES.forbidden}: ${detail}`);
        return vacationError(reply, 403, MESSAGES.forbidden, { emailUserResponsable: detail });
      }
      let r;
      try {
        r = await deps.commands.delete(code, actorOf(req, user, { write: true }));
      } catch (err) {
        req.log.error(
          { err, action: 'ERROR_ELIMINACION', codigoPila: code, responsable: user.email, reason: (err as Error).message },
          'deletion failed',
        );
        return vacationError(reply, 500, MESSAGES.deleteFailed, { detalle: MESSAGES.internal });
      }
      if (!r.ok) {
        const [status, reason] = REFUSAL[r.kind] ?? [0, r.kind];
        deletionRefused(req, code, user.email, status, reason);
        return failure(reply, r, { code, op: 'delete' });
      }
      deps.metrics?.commandOutcome('delete', 'ok');
      const { record, at } = r.value.value;
      req.log.info(
        { action: 'ELIMINACION_EXITOSA', idEliminado: record.recordId, codigoPila: code, responsable: user.email, fecha: at },
        'vacation deleted',
      );
      deps.readSide.noteWrite(r.value.position);
      return vacationSuccess(reply, 200, 'Vacaciones eliminadas correctamente', {
        idEliminado: record.recordId,
        codigoPila: code,
        // The time the deletion event holds, so the answer and the history never disagree.
        fechaEliminacion: bogotaTimestamp(new Date(at)),
      });
    },
    (req, code, email) => deletionRefused(req, code, maskEmail(email), 404, MESSAGES.userNotFound),
  );

  postByCode('/vacaciones/approve', async (req, reply, code, user) => {
    const r = await deps.commands.approve(code, actorOf(req, user, { write: true }));
    if (!r.ok) return failure(reply, r, { code, op: 'approve' });
    deps.metrics?.commandOutcome('approve', 'ok');
    deps.readSide.noteWrite(r.value.position);
    return vacationSuccess(reply, 200, 'Vacaciones aprobadas correctamente', {
      id: r.value.value.record.recordId,
      codigoPila: code,
      fechaAprobacion: bogotaTimestamp(new Date(r.value.value.at)),
    });
  });

  // CST art. 188: an approved, enjoyed vacation in course stops on a business day; the days not
  // enjoyed go back to the balance, and may be booked later by a record naming this one.
  app.post('/vacaciones/interrupt', { config: cfg }, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseInterruptInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { code, date, reason, email } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      const r = await deps.commands.interrupt(code, { date, reason }, actorOf(req, user, { write: true }));
      if (!r.ok) return failure(reply, r, { code, op: 'interrupt' });
      deps.metrics?.commandOutcome('interrupt', 'ok');
      deps.readSide.noteWrite(r.value.position);
      const { record } = r.value.value;
      req.log.info(
        { action: 'INTERRUPCION', codigoPila: code, fechaInterrupcion: date, motivo: reason, responsable: user.email },
        'vacation interrupted',
      );
      return vacationSuccess(reply, 200, 'Vacaciones interrumpidas correctamente', {
        id: record.recordId,
        codigoPila: code,
        fechaInterrupcion: record.interruptedOn,
        motivo: record.reason,
        diasDisfrutados: record.businessDays,
        diasDevueltos: record.daysReturned,
        fechaRegistro: bogotaTimestamp(new Date(record.interruptedAt)),
        vacaciones: recordBody(record),
      });
    }),
  );

  for (const path of [
    '/vacaciones/calculate',
    '/vacaciones/add',
    '/vacaciones/edit',
    '/vacaciones/delete',
    '/vacaciones/approve',
    '/vacaciones/interrupt',
  ]) {
    app.route({ method: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: path, config: cfg, handler: methodNotAllowed('POST') });
  }
}
