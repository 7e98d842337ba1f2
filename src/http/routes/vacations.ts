import { noticesField } from '../../app/notices.ts';
import { figuresWire, recordWire } from '../../app/record-wire.ts';
import { ENDPOINTS, route, type Endpoint } from '../endpoints.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { VacationFigures } from '../../app/ports.ts';
import { refusalWords, type Refusal, type UseCase } from '../../app/refusals.ts';
import { UseCaseError, VacationUseCases, type Call } from '../../app/vacations.ts';
import { actorOf } from '../request-actor.ts';
import { toDecimal2, Days360 } from '../../domain/index.ts';
import type { User } from '../../reference/repository.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError, vacationSuccess } from '../envelopes.ts';
import { Fields, bogotaTimestamp, flagText, maskEmail } from '../../app/fields.ts';
import { responsibleAdministrator } from '../responsible.ts';
import { withIdempotency } from '../idempotency.ts';
import { parseCodeInput, parseCreateInput, parseEditInput, parseInterruptInput } from '../../app/vacation-input.ts';

/** The error a use case threw, so the error handler tells an outage (503) from a fault (500) as for any route. */
const rethrowCause = (e: unknown): never => {
  throw e instanceof UseCaseError ? e.error : e;
};

function calculationBody(f: VacationFigures) {
  return {
    ...figuresWire(f),
    vacPagado: flagText(f.advance),
    vacLaboraSabado: flagText(f.worksSaturday),
    vacCompensado: flagText(f.compensated),
    vacSeguridadEnNomina: flagText(f.socialSecurityInPayroll),
    DiasDisponibles: toDecimal2(Days360.fromUnits(f.availableUnits)),
    diasCausados: toDecimal2(Days360.fromUnits(f.accruedUnits)),
  };
}

export function vacationRoutes(app: FastifyInstance, deps: AppDeps) {
  const useCases = new VacationUseCases(deps);

  const responsible = (req: FastifyRequest, email: string): Promise<User | null> => responsibleAdministrator(deps.reference, req, email);

  const userNotFound = (reply: FastifyReply) =>
    vacationError(reply, 404, MESSAGES.userNotFound, { emailUserResponsable: 'No existe un usuario administrador con ese correo' });

  /**
   * Delete and approve name a record only by its code, so both check the body and the
   * responsible administrator the same way before the handler runs. `onUnknownUser` hears of a
   * request refused for its administrator.
   */
  function postByCode(
    endpoint: Endpoint,
    handle: (req: FastifyRequest, reply: FastifyReply, code: string, user: User) => Promise<unknown>,
    onUnknownUser?: (req: FastifyRequest, code: string, email: string) => void,
  ) {
    route(app, endpoint, async (req, reply) =>
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

  /** A refusal in the interface's envelope; a busy store also says when to try again. */
  function refused(reply: FastifyReply, f: Refusal, op: UseCase, ctx: { documentNumber?: string; code?: string }) {
    const w = refusalWords(f, op, ctx);
    if (f.kind === 'busy') reply.header('retry-after', '1');
    return vacationError(reply, w.status, w.message, w.errors);
  }

  const call = (req: FastifyRequest, user: User): Call => ({ actor: actorOf(req, user, { write: true }), user, log: req.log });

  route(app, ENDPOINTS.calculate, async (req, reply) => {
    const parsed = parseCreateInput(new Fields(req.body));
    if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
    const { documentNumber, email, request } = parsed.value;
    if (!(await responsible(req, email))) return userNotFound(reply);
    const r = await useCases.calculate(documentNumber, request);
    if (!r.ok) return refused(reply, r, 'calculate', { documentNumber });
    return vacationSuccess(reply, 200, 'Cálculo de vacaciones realizado correctamente', calculationBody(r.value));
  });

  route(app, ENDPOINTS.add, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseCreateInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { documentNumber, email, request } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      const r = await useCases.create(call(req, user), documentNumber, request);
      if (!r.ok) return refused(reply, r, 'create', { documentNumber });
      const { record } = r.value;
      return vacationSuccess(reply, 201, 'Vacaciones registradas correctamente', {
        codigo_pila: record.codigoPila,
        id: record.recordId,
        vacaciones: recordWire(record),
        ...noticesField(record.startDate, deps.today()),
      });
    }),
  );

  route(app, ENDPOINTS.edit, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseEditInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { code, documentNumber, email, request } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      // An edit that threw is answered by the error handler as any other failure (500, or 503 for an outage).
      const r = await useCases.edit(call(req, user), code, documentNumber, request).catch(rethrowCause);
      if (!r.ok) return refused(reply, r, 'edit', { documentNumber, code });
      const { record } = r.value;
      return vacationSuccess(reply, 200, 'Vacaciones editadas correctamente', {
        id: record.recordId,
        codigoPilaAnterior: code,
        codigoPilaNuevo: record.codigoPila,
        fechaEdicion: bogotaTimestamp(new Date(record.createdAt)),
        vacaciones: recordWire(record),
        ...noticesField(record.startDate, deps.today()),
      });
    }),
  );

  postByCode(
    ENDPOINTS.delete,
    async (req, reply, code, user) => {
      let r;
      try {
        r = await useCases.delete(call(req, user), code);
      } catch {
        return vacationError(reply, 500, MESSAGES.deleteFailed, { detalle: MESSAGES.internal });
      }
      if (!r.ok) return refused(reply, r, 'delete', { code });
      const { record, at } = r.value;
      return vacationSuccess(reply, 200, 'Vacaciones eliminadas correctamente', {
        idEliminado: record.recordId,
        codigoPila: code,
        // The time the deletion event holds, so the answer and the history never disagree.
        fechaEliminacion: bogotaTimestamp(new Date(at)),
      });
    },
    (req, code, email) =>
      req.log.warn(
        {
          action: 'ERROR_ELIMINACION',
          idEliminado: null,
          codigoPila: code,
          responsable: maskEmail(email),
          status: 404,
          reason: MESSAGES.userNotFound,
        },
        'deletion refused',
      ),
  );

  postByCode(ENDPOINTS.approve, async (req, reply, code, user) => {
    const r = await useCases.approve(call(req, user), code);
    if (!r.ok) return refused(reply, r, 'approve', { code });
    return vacationSuccess(reply, 200, 'Vacaciones aprobadas correctamente', {
      id: r.value.record.recordId,
      codigoPila: code,
      fechaAprobacion: bogotaTimestamp(new Date(r.value.at)),
    });
  });

  // CST art. 188: an approved, enjoyed vacation in course stops on a business day; the days not
  // enjoyed go back to the balance, and may be booked later by a record naming this one.
  route(app, ENDPOINTS.interrupt, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseInterruptInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const { code, date, reason, email } = parsed.value;
      const user = await responsible(req, email);
      if (!user) return userNotFound(reply);
      const r = await useCases.interrupt(call(req, user), code, { date, reason });
      if (!r.ok) return refused(reply, r, 'interrupt', { code });
      const { record } = r.value;
      return vacationSuccess(reply, 200, 'Vacaciones interrumpidas correctamente', {
        id: record.recordId,
        codigoPila: code,
        fechaInterrupcion: record.interruptedOn,
        motivo: record.reason,
        diasDisfrutados: record.businessDays,
        diasDevueltos: record.daysReturned,
        fechaRegistro: bogotaTimestamp(new Date(record.interruptedAt)),
        vacaciones: recordWire(record),
      });
    }),
  );
}
