import { Days360, toDecimal2 } from '../domain/index.ts';
import type { SettlementWarning } from '../projections/register/settlement.ts';
import { formatDays } from './rule-messages.ts';

/** The warnings of the periods, the register and the settlement as callers read them: a kind and its words. */
export type WarningBody = { tipo: 'acumulacion' | 'prescripcion' | 'prescrito' | 'posterior'; mensaje: string };

const pendingDays = (units: number) => formatDays(toDecimal2(Days360.fromUnits(units)));

/** A warning of the vacation-law endpoints in the words of the interface. */
export function warningBody(w: SettlementWarning): WarningBody {
  switch (w.kind) {
    case 'accumulation':
      return {
        tipo: 'acumulacion',
        mensaje: `El trabajador tiene ${w.owed} períodos causados con días pendientes; el artículo 190 del CST permite acumular hasta ${w.limit}${w.extended ? ' para personal técnico, especializado, de confianza o de manejo' : ''}`,
      };
    case 'prescribed':
      return {
        tipo: 'prescrito',
        mensaje: `Los ${pendingDays(w.pendingUnits)} días pendientes del período ${w.period.number} del contrato ${w.period.contractId} prescribieron el ${w.on} (artículo 488 del CST)`,
      };
    case 'aboutToPrescribe':
      return {
        tipo: 'prescripcion',
        mensaje: `Los ${pendingDays(w.pendingUnits)} días pendientes del período ${w.period.number} del contrato ${w.period.contractId} prescriben el ${w.on} (artículo 488 del CST)`,
      };
    case 'endsAfterLeaving':
      return {
        tipo: 'posterior',
        mensaje: `Las vacaciones ${w.codigoPila} (del ${w.startDate} al ${w.endDate}) terminan después de la fecha de retiro y sus días se descuentan como tomados; interrúmpalas o elimínelas si no se disfrutarán`,
      };
  }
}
