import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { Days360, toDecimal2 } from '../../domain/index.ts';
import { periodsProblem } from '../../projections/reports/periods.ts';
import type { User } from '../../reference/repository.ts';
import type { WorkerFileRow } from '../../reference/worker-files.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { vacationError, vacationSuccess } from '../envelopes.ts';
import { Fields } from '../../app/fields.ts';
import { lawProblemMessage, warningBody } from '../../app/law-messages.ts';
import { periodBody } from '../../app/period-body.ts';
import { responsibleAdministrator } from '../responsible.ts';
import { periodsQuery, settlementQuery } from '../../app/schemas.ts';
import { validate } from '../../app/vacation-input.ts';

/**
 * What Colombian law asks of vacations beyond booking: the accrual periods of a worker, answered
 * from the register read model and the payroll reference data.
 */
export function lawRoutes(app: FastifyInstance, deps: AppDeps) {
  /**
   * The query's fields against their schema, then the worker by document, then the responsible
   * administrator; every refusal in the vacation envelope. Undefined once a refusal is sent.
   */
  async function identify<S extends z.ZodObject<{ numeroDocumento: z.ZodType<string>; emailResponsable: z.ZodType<string> }>>(
    req: FastifyRequest,
    reply: FastifyReply,
    schema: S,
  ): Promise<{ file: WorkerFileRow; user: User; input: z.infer<S> } | undefined> {
    const parsed = validate(schema, new Fields(req.query));
    if (!parsed.ok) return void vacationError(reply, 400, MESSAGES.missingData, Object.fromEntries(parsed.problems));
    const input = parsed.value;
    req.responsibleEmail = input.emailResponsable;
    const file = await deps.reference.workerFileByDocument(input.numeroDocumento);
    if (!file) {
      return void vacationError(reply, 404, MESSAGES.workerNotFound, {
        numeroDocumento: `No existe un trabajador con documento ${input.numeroDocumento}`,
      });
    }
    const user = await responsibleAdministrator(deps.reference, req, input.emailResponsable);
    if (!user) {
      return void vacationError(reply, 404, MESSAGES.userNotFound, {
        emailResponsable: 'No existe un usuario administrador con ese correo',
      });
    }
    return { file, user, input };
  }

  route(app, ENDPOINTS.periods, async (req, reply) => {
    const who = await identify(req, reply, periodsQuery);
    if (!who) return reply;
    const { file } = who;
    const { worker } = file;
    const today = deps.today();
    const problem = periodsProblem(file, today);
    if (problem) return vacationError(reply, 422, 'No se pueden calcular los períodos de vacaciones', [lawProblemMessage(problem)]);
    const report = await deps.readSide.periodsOf(file, today);
    return vacationSuccess(reply, 200, 'Períodos de vacaciones del trabajador', {
      asociadoId: worker.id,
      numeroDocumento: worker.documentNumber,
      fechaCorte: today,
      periodos: report.periods.map(periodBody),
      totales: {
        diasCausados: report.totals.accrued,
        diasDisfrutados: report.totals.enjoyed,
        diasCompensados: report.totals.compensated,
        diasPendientes: report.totals.pending,
      },
      advertencias: report.warnings.map(warningBody),
    });
  });

  route(app, ENDPOINTS.settlement, async (req, reply) => {
    const who = await identify(req, reply, settlementQuery);
    if (!who) return reply;
    const { file, input } = who;
    const { worker } = file;
    const outcome = await deps.readSide.settlementOf(file, input.fechaRetiro);
    if (!outcome.ok) {
      return vacationError(reply, 422, 'No se puede calcular la liquidación de vacaciones', [lawProblemMessage(outcome.problem)]);
    }
    const s = outcome.settlement;
    return vacationSuccess(reply, 200, 'Liquidación de vacaciones (vista previa; no se guarda nada)', {
      asociadoId: worker.id,
      numeroDocumento: worker.documentNumber,
      fechaRetiro: s.leavingDate,
      contrato: {
        contratoId: s.contract.id,
        salarioBase: s.contract.baseSalary,
        salarioVariable: s.contract.variableSalary,
        salarioVacaciones: s.salary,
      },
      nominaHasta: s.unpaid.payrollThrough,
      diasSinNomina: s.unpaid.days,
      diasCausadosSinNomina: toDecimal2(Days360.fromUnits(s.unpaid.accruedUnits)),
      diasPendientes: s.pending,
      valor: s.value,
      periodos: s.periods.map(periodBody),
      periodosExcluidos: s.excluded.map(periodBody),
      advertencias: s.warnings.map(warningBody),
    });
  });
}
