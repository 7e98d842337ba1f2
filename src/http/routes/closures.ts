import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClosureUseCases, closureBody, closureRefusal, huellaOf } from '../../app/closures.ts';
import type { AppDeps } from '../../app/context.ts';
import { Fields, bogotaTimestamp } from '../../app/fields.ts';
import { MESSAGES } from '../../app/messages.ts';
import { parseClosureCancelInput, parseClosureCodeInput, parseClosureInput } from '../../app/vacation-input.ts';
import type { ClosureRequest } from '../../app/closures.ts';
import type { User } from '../../reference/repository.ts';
import { ENDPOINTS, route } from '../endpoints.ts';
import { vacationError, vacationSuccess } from '../envelopes.ts';
import { withIdempotency } from '../idempotency.ts';
import { actorOf } from '../request-actor.ts';
import { responsibleAdministrator } from '../responsible.ts';

/** Collective closures (vacaciones colectivas): preview, book, approve together, cancel together. */
export function closureRoutes(app: FastifyInstance, deps: AppDeps) {
  const useCases = new ClosureUseCases(deps);
  const responsible = (req: FastifyRequest, email: string): Promise<User | null> => responsibleAdministrator(deps.reference, req, email);
  const userNotFound = (reply: FastifyReply) =>
    vacationError(reply, 404, MESSAGES.userNotFound, { emailUserResponsable: 'No existe un usuario administrador con ese correo' });

  route(app, ENDPOINTS.closure, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseClosureInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const input = parsed.value;
      const user = await responsible(req, input.email);
      if (!user) return userNotFound(reply);
      const request: ClosureRequest = {
        scope: input.scope,
        startDate: input.startDate,
        days: input.days,
        worksSaturday: input.worksSaturday,
      };
      const actor = actorOf(req, user, { write: !input.preview });
      if (input.preview) {
        const r = await useCases.preview(request, actor);
        if (!r.ok) {
          const w = closureRefusal(r, request);
          return vacationError(reply, w.status, w.message, w.errors);
        }
        return vacationSuccess(reply, 200, 'Vista previa de las vacaciones colectivas', {
          ...closureBody(request, r.value, deps.today()),
          huella: huellaOf(r.value.seen),
        });
      }
      const r = await useCases.book(request, actor, input.seen ?? undefined);
      if (!r.ok) {
        const w = closureRefusal(r, request);
        if (r.kind === 'busy') reply.header('retry-after', '1');
        return vacationError(reply, w.status, w.message, w.errors);
      }
      req.log.info(
        { action: 'COLECTIVA', idColectiva: r.value.closure.closureId, registros: r.value.records.length, responsable: user.email },
        'collective closure booked',
      );
      return vacationSuccess(
        reply,
        201,
        'Vacaciones colectivas registradas correctamente',
        closureBody(request, r.value.preview, deps.today(), r.value),
      );
    }),
  );

  const changed = (reply: FastifyReply, message: string, v: { closureId: string; codes: string[]; at: string }) =>
    vacationSuccess(reply, 200, message, {
      idColectiva: v.closureId,
      registros: v.codes.length,
      codigos: v.codes,
      fecha: bogotaTimestamp(new Date(v.at)),
    });

  route(app, ENDPOINTS.closureApprove, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseClosureCodeInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const user = await responsible(req, parsed.value.email);
      if (!user) return userNotFound(reply);
      const r = await useCases.approve(parsed.value.closureId, actorOf(req, user, { write: true }));
      if (!r.ok) {
        const w = closureRefusal(r);
        return vacationError(reply, w.status, w.message, w.errors);
      }
      return changed(reply, 'Vacaciones colectivas aprobadas correctamente', r.value);
    }),
  );

  route(app, ENDPOINTS.closureCancel, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parseClosureCancelInput(new Fields(req.body));
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const user = await responsible(req, parsed.value.email);
      if (!user) return userNotFound(reply);
      const r = await useCases.cancel(parsed.value.closureId, parsed.value.reason, actorOf(req, user, { write: true }));
      if (!r.ok) {
        const w = closureRefusal(r);
        return vacationError(reply, w.status, w.message, w.errors);
      }
      return changed(reply, 'Vacaciones colectivas canceladas correctamente', r.value);
    }),
  );
}
