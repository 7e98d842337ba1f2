import { ENDPOINTS, route } from '../endpoints.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordAudit } from '../../app/ports.ts';
import { actorOf } from '../request-actor.ts';
import { contractStatus, toDecimal2 } from '../../domain/index.ts';
import { vacationBalance } from '../../projections/reports/balance.ts';
import type { AppDeps } from '../../app/context.ts';
import { MESSAGES } from '../../app/messages.ts';
import { lookupError } from '../envelopes.ts';
import { isUnavailable } from '../errors.ts';
import { Fields } from '../../app/fields.ts';
import { responsibleAdministrator, responsibleMissing } from '../responsible.ts';
import { BALANCE_PROBLEM_MESSAGES, NO_PARAMS_STATE } from '../../app/rule-messages.ts';

export function lookupRoutes(app: FastifyInstance, deps: AppDeps) {
  const now = deps.now ?? (() => new Date());

  /**
   * Worker by document, then the administrator by e-mail, in that order. Only the contract check
   * takes a document type (and then filters by it); the consult has no such parameter.
   */
  async function identify(req: FastifyRequest, reply: FastifyReply, fields: Fields, contractCheck: boolean) {
    const omit400Status = contractCheck;
    const doc = fields.isAmbiguous('numeroDocumento') ? undefined : fields.get('numeroDocumento');
    if (!doc) return void lookupError(reply, 400, MESSAGES.documentRequired, { omitStatusCode: omit400Status });
    const email = fields.isAmbiguous('emailResponsable') ? undefined : fields.get('emailResponsable');
    if (!email) return void responsibleMissing(reply, fields, { omitStatusCode: omit400Status });
    // Logged even when the worker is not found.
    req.responsibleEmail = email;
    const docType = contractCheck ? fields.get('tipoDocumento') : undefined;
    const file = await deps.reference.workerFileByDocument(doc);
    if (!file || (docType !== undefined && docType.toUpperCase() !== file.worker.documentType)) {
      return void lookupError(reply, 404, MESSAGES.workerNotFound);
    }
    const user = await responsibleAdministrator(deps.reference, req, email);
    if (!user) return void lookupError(reply, 404, MESSAGES.adminNotFound);
    return { file, worker: file.worker, user, docType: docType ?? null };
  }

  route(app, ENDPOINTS.consult, async (req, reply) => {
    const who = await identify(req, reply, new Fields(req.query), false);
    if (!who) return reply;
    const { file, worker, user } = who;
    const today = deps.today();
    const audit = async (outcome: Record<string, unknown>, companyContractId: number | null) =>
      recordAudit(
        deps.audits,
        actorOf(req, user, { write: false }),
        {
          type: 'VacationDataConsulted',
          data: {
            workerId: worker.id,
            documentNumber: worker.documentNumber,
            outcome,
            companyContractId,
            consultedAt: now().toISOString(),
          },
        },
        today,
        now(),
      );
    const answer = async (status: number, body: Record<string, unknown>, companyContractId: number | null) => {
      try {
        await audit({ status, ...body }, companyContractId);
      } catch (err) {
        req.log.error({ err }, 'consult audit could not be written');
        // The event store busy or out of reach (a contended stream, a deadline, no leader): a 503, to retry.
        if (isUnavailable(err)) return lookupError(reply, 503, MESSAGES.unavailable);
        return lookupError(reply, 500, 'No fue posible registrar la auditoría de la consulta.');
      }
      return reply.code(status).send(body);
    };

    let result;
    try {
      result = await vacationBalance(file, today, () => deps.readSide.liveRecordsOf(worker.id));
    } catch (err) {
      req.log.error({ err }, 'vacation days could not be computed');
      return lookupError(reply, 500, 'No fue posible calcular los días de vacaciones.');
    }
    if (!result.ok) {
      const p = result.problem;
      if (p.kind === 'no_contracts') return answer(200, { success: true, activo: false, estado: 'sin contratos' }, null);
      if (p.kind === 'no_params') {
        return answer(200, { success: true, activo: false, estado: NO_PARAMS_STATE }, p.company.id);
      }
      return answer(
        422,
        { success: false, statusCode: 422, message: BALANCE_PROBLEM_MESSAGES[p.kind] },
        result.contract?.companyContractId ?? null,
      );
    }
    const { company, params } = result.balance;
    const figures = {
      diasLaboradosNomina: result.balance.worked,
      vacacionesDisponibles: toDecimal2(result.balance.available),
      ibcUltimoMes: result.balance.ibc,
      annual: result.balance.annualDays,
    };
    return answer(
      200,
      {
        success: true,
        asociadoId: worker.id,
        diasLaboradosNomina: figures.diasLaboradosNomina,
        vacacionesDisponibles: figures.vacacionesDisponibles,
        ibcUltimoMes: figures.ibcUltimoMes,
        parametrizacion: {
          diasVacacionesAnuales: figures.annual,
          diasMinimosDisfrutados: params.minEnjoyedDays,
          vacacionesAnticipadas: params.advanceAllowed,
          diasVacacionesAnticipadas: params.maxAdvanceDays,
          numeroPersonasVacaciones: params.maxPeopleOnVacation,
        },
      },
      company.id,
    );
  });

  route(app, ENDPOINTS.contract, async (req, reply) => {
    const who = await identify(req, reply, new Fields(req.query), true);
    if (!who) return reply;
    const { file, worker, user, docType } = who;
    const today = deps.today();
    const status = contractStatus(file.contracts, today);
    const body =
      status.kind === 'none'
        ? { success: true, activo: false, estado: 'sin contrato registrado' }
        : status.kind === 'inactive'
          ? { success: true, activo: false, estado: 'sin contrato' }
          : {
              success: true,
              activo: true,
              estado: 'activo',
              contrato: {
                fechaInicio: status.contract.startDate,
                fechaFin: status.contract.endDate,
                esAdicional: status.contract.additional,
              },
            };
    try {
      await recordAudit(
        deps.audits,
        actorOf(req, user, { write: false }),
        {
          type: 'ContractStatusChecked',
          data: {
            workerId: worker.id,
            documentNumber: worker.documentNumber,
            documentType: docType,
            estado: body.estado,
            activo: body.activo,
            checkedAt: now().toISOString(),
          },
        },
        today,
        now(),
      );
    } catch (err) {
      req.log.error({ err }, 'contract check audit could not be written');
      if (isUnavailable(err)) return lookupError(reply, 503, MESSAGES.unavailable, { omitStatusCode: true });
      return lookupError(reply, 500, MESSAGES.internal, { omitStatusCode: true });
    }
    return reply.code(200).send(body);
  });
}
