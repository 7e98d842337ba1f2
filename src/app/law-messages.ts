import { Days360, toDecimal2 } from '../domain/index.ts';
import type { SettlementProblem, SettlementWarning } from '../projections/reports/settlement.ts';
import { BALANCE_PROBLEM_MESSAGES, NO_PARAMS_STATE, formatDays } from './rule-messages.ts';

/** The warnings of the periods, the register and the settlement as callers read them: a kind and its words. */
export type WarningBody = {
  tipo: 'acumulacion' | 'prescripcion' | 'prescrito' | 'posterior' | 'liquidado' | 'proyectado' | 'art190SeisDias';
  mensaje: string;
};

const pendingDays = (units: number) => formatDays(toDecimal2(Days360.fromUnits(units)));
const ofPeriod = (p: { number: number; contractId: number }) => `del período ${p.number} del contrato ${p.contractId}`;

/** A warning of the vacation-law endpoints in the words of the interface. */
export function warningBody(w: SettlementWarning): WarningBody {
  switch (w.kind) {
    case 'accumulation':
      return {
        tipo: 'acumulacion',
        mensaje:
          `El trabajador tiene ${w.owed} períodos causados con días pendientes; el artículo 190 del CST permite acumular hasta ${w.limit}` +
          (w.extended ? ' para personal técnico, especializado, de confianza o de manejo' : ''),
      };
    case 'prescribed':
      return {
        tipo: 'prescrito',
        mensaje: `Los ${pendingDays(w.pendingUnits)} días pendientes ${ofPeriod(w.period)} prescribieron el ${w.on} (artículo 488 del CST)`,
      };
    case 'aboutToPrescribe':
      return {
        tipo: 'prescripcion',
        mensaje: `Los ${pendingDays(w.pendingUnits)} días pendientes ${ofPeriod(w.period)} prescriben el ${w.on} (artículo 488 del CST)`,
      };
    case 'sixDays':
      return {
        tipo: 'art190SeisDias',
        mensaje:
          `El período ${w.period.number} del contrato ${w.period.contractId}, exigible desde el ${w.enforceableFrom}, pasó su año ` +
          `(hasta el ${w.due}) sin unas vacaciones disfrutadas de al menos 6 días hábiles continuos (artículo 190 del CST)`,
      };
    case 'endsAfterLeaving':
      return {
        tipo: 'posterior',
        mensaje:
          `Las vacaciones ${w.codigoPila} (del ${w.startDate} al ${w.endDate}) terminan después de la fecha de retiro ` +
          'y sus días se descuentan como tomados; interrúmpalas o elimínelas si no se disfrutarán',
      };
    case 'settledContract':
      return {
        tipo: 'liquidado',
        mensaje:
          `Los ${pendingDays(w.pendingUnits)} días pendientes de los períodos del contrato ${w.contractId} no se incluyen: ` +
          'el contrato está liquidado y se pagaron en su liquidación',
      };
    case 'projected':
      return {
        tipo: 'proyectado',
        mensaje:
          `Los ${w.days} días laborados del ${w.from} a la fecha de retiro (${pendingDays(w.accruedUnits)} días de vacaciones) ` +
          `se proyectan desde el contrato ${w.contractId}: ` +
          (w.payrollThrough === null ? 'no tiene nómina registrada' : `la nómina está registrada solo hasta el ${w.payrollThrough}`),
      };
  }
}

/** Why the periods or the settlement cannot be figured, in the consult's words for the same state. */
export function lawProblemMessage(p: SettlementProblem): string {
  switch (p.kind) {
    case 'no_contract_on_leaving':
      return `El trabajador no tiene un contrato vigente en la fecha de retiro ${p.leavingDate}`;
    case 'no_params':
      return NO_PARAMS_STATE;
    default:
      return BALANCE_PROBLEM_MESSAGES[p.kind];
  }
}
