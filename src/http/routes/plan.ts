import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/context.ts';
import { Fields } from '../../app/fields.ts';
import { MESSAGES } from '../../app/messages.ts';
import { planBody, planYears } from '../../app/plan.ts';
import { PlanBookingUseCases, parsePlanBookingInput, planBookedBody, planBookingRefusal } from '../../app/plan-booking.ts';
import { planQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';
import { annualPlan } from '../../projections/reports/plan.ts';
import { unknownInScope } from '../../reference/worker-files.ts';
import { ENDPOINTS, route } from '../endpoints.ts';
import { vacationError, vacationSuccess } from '../envelopes.ts';
import { withIdempotency } from '../idempotency.ts';
import { actorOf } from '../request-actor.ts';
import { responsibleAdministrator } from '../responsible.ts';

/**
 * GET /vacaciones/plan: the annual vacation plan, a proposal read from the read models; nothing is
 * written. POST /vacaciones/plan/reservar: its lines booked at once, all or nothing.
 */
export function planRoutes(app: FastifyInstance, deps: AppDeps) {
  const booking = new PlanBookingUseCases(deps);

  route(app, ENDPOINTS.planBooking, async (req, reply) =>
    withIdempotency(deps, req, reply, async () => {
      const parsed = parsePlanBookingInput(req.body);
      if (!parsed.ok) return vacationError(reply, parsed.status, parsed.message, parsed.errors);
      const user = await responsibleAdministrator(deps.reference, req, parsed.value.email);
      if (!user) {
        return vacationError(reply, 404, MESSAGES.userNotFound, {
          emailUserResponsable: 'No existe un usuario administrador con ese correo',
        });
      }
      const r = await booking.book({ actor: actorOf(req, user, { write: true }), user, log: req.log }, parsed.value.lines);
      if (!r.ok) {
        const w = planBookingRefusal(r);
        if (r.kind === 'busy') reply.header('retry-after', '1');
        return vacationError(reply, w.status, w.message, w.errors);
      }
      return vacationSuccess(
        reply,
        201,
        `Plan anual de vacaciones registrado: ${r.value.records.length === 1 ? '1 registro' : `${r.value.records.length} registros`}`,
        planBookedBody(r.value.records, deps.today()),
      );
    }),
  );

  route(app, ENDPOINTS.plan, async (req, reply) => {
    const parsed = validate(planQuery, new Fields(req.query));
    if (!parsed.ok) return vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const year = Number(input.anio);
    const years = planYears(deps.today());
    if (!years.includes(year)) {
      return vacationError(reply, 422, 'No se puede proponer el plan', {
        anio: `El plan se propone para ${years.join(' o ')}, no para ${year}`,
      });
    }
    const units = input.subgerenciaId ? [...new Set(input.subgerenciaId.split(',').map((u) => u.trim()))] : null;
    if (units) {
      const unknown = await unknownInScope(deps.db, { subgerenciaIds: units, companyContractId: null });
      if (unknown.subgerencias.length > 0) {
        return vacationError(reply, 404, 'Subgerencia no encontrada', {
          subgerenciaId: `No existe la subgerencia ${unknown.subgerencias.join(', ')}`,
        });
      }
    }
    if (!(await responsibleAdministrator(deps.reference, req, input.emailResponsable))) {
      return vacationError(reply, 404, MESSAGES.userNotFound, { emailResponsable: 'No existe un usuario administrador con ese correo' });
    }
    // The plan includes every write this instance acknowledged before the request.
    const plan = await deps.readSide.fresh(() =>
      annualPlan(deps.db, { year, subgerenciaIds: units, today: deps.today(), calendar: deps.calendar }),
    );
    reply.header('cache-control', 'no-store');
    return { success: true, statusCode: 200, message: 'Plan anual de vacaciones propuesto', data: planBody(plan, units) };
  });
}
