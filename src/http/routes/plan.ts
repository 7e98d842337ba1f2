import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app/context.ts';
import { Fields } from '../../app/fields.ts';
import { MESSAGES } from '../../app/messages.ts';
import { planBody, planYears } from '../../app/plan.ts';
import { planQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';
import { annualPlan } from '../../projections/reports/plan.ts';
import { unknownInScope } from '../../reference/worker-files.ts';
import { ENDPOINTS, route } from '../endpoints.ts';
import { vacationError } from '../envelopes.ts';
import { responsibleAdministrator } from '../responsible.ts';

/** GET /vacaciones/plan: the annual vacation plan, a proposal read from the read models; nothing is written. */
export function planRoutes(app: FastifyInstance, deps: AppDeps) {
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
