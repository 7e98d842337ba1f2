import type { RuleViolation } from '../commands/violations.ts';

/** Day balances shown with at most two decimals, as callers read them. */
export function formatDays(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** A broken business rule in the words of the interface (SPEC.md), with its figures. */
export function ruleMessage(v: RuleViolation): string {
  switch (v.rule) {
    case 'noContract':
      return 'El trabajador no tiene un contrato vigente en la fecha de inicio';
    case 'noCompanyContract':
      return 'El contrato no tiene asociado un contrato empresa válido.';
    case 'noVacationParams':
      return 'El contrato empresa no tiene parametrización de vacaciones';
    case 'noRiskLevel':
      return 'No se encuentra configurado el nivel de riesgo del contrato.';
    case 'notBusinessDay':
      return `La fecha de inicio ${v.startDate} no es un día hábil para el trabajador`;
    case 'notEnoughDays':
      return `Los días solicitados (${v.requested}) superan los días disponibles (${formatDays(v.available)})`;
    case 'belowMinimum':
      return `Los días solicitados (${v.requested}) no cumplen el mínimo de ${v.minimum} días disfrutados`;
    case 'advanceNotAllowed':
      return (
        `Los días solicitados (${v.requested}) superan los días disponibles (${formatDays(v.available)}) ` +
        'y el contrato empresa no permite vacaciones anticipadas'
      );
    case 'advanceOverMaximum':
      return `Los días anticipados (${formatDays(v.inAdvance)}) superan el máximo de ${v.maximum} días de vacaciones anticipadas`;
    case 'unitFull':
      return `Se alcanzó el máximo de ${v.maximum} personas de vacaciones al mismo tiempo en la subgerencia ${v.subgerenciaId} el ${v.day}`;
    case 'compensationOverHalf':
      return (
        `Los días compensados en dinero (${formatDays(v.compensated)}) superarían la mitad de los días causados ` +
        `a la fecha de inicio (${formatDays(v.accrued)}): solo puede pagarse en dinero hasta la mitad de lo causado`
      );
    case 'endsAfterContract':
      return `Las vacaciones terminan el ${v.endDate}, después del fin del contrato (${v.contractEnd})`;
    case 'overlap':
      return `Las fechas se cruzan con otras vacaciones del trabajador (${v.codigoPila}, del ${v.startDate} al ${v.endDate})`;
    case 'notApprovedToInterrupt':
      return `Las vacaciones ${v.codigoPila} no están aprobadas: solo se pueden interrumpir vacaciones aprobadas`;
    case 'compensatedToInterrupt':
      return `Las vacaciones ${v.codigoPila} fueron compensadas en dinero: no hay disfrute que interrumpir`;
    case 'alreadyInterrupted':
      return `Las vacaciones ${v.codigoPila} ya fueron interrumpidas el ${v.on}`;
    case 'notBegun':
      return (
        `Las vacaciones ${v.codigoPila} aún no han comenzado (inician el ${v.startDate} y hoy es ${v.today}): ` +
        'solo se interrumpen vacaciones en curso'
      );
    case 'alreadyEnded':
      return `Las vacaciones ${v.codigoPila} terminaron el ${v.endDate} (hoy es ${v.today}): solo se interrumpen vacaciones en curso`;
    case 'interruptionOutside':
      return `La fecha de interrupción ${v.date} debe estar entre el inicio (${v.startDate}) y el fin (${v.endDate}) de las vacaciones`;
    case 'interruptionNotBusinessDay':
      return `La fecha de interrupción ${v.date} no es un día hábil para el trabajador`;
    case 'continuesUnknown':
      return `Las vacaciones interrumpidas ${v.codigoPila} no existen o no son del trabajador`;
    case 'continuesNotInterrupted':
      return `Las vacaciones ${v.codigoPila} no fueron interrumpidas: no tienen días pendientes que continuar`;
    case 'continuesOverReturned':
      return (
        `Los días solicitados (${v.requested}) superan los ${v.left} días no disfrutados ` +
        `que quedan de las vacaciones interrumpidas ${v.codigoPila}`
      );
  }
}

export function ruleMessages(violations: readonly RuleViolation[]): string[] {
  return violations.map(ruleMessage);
}

/** An edit of a record that belongs to another worker than the one named. */
export function notOwnerMessage(code: string, documentNumber: string): string {
  return `El código PILA ${code} no pertenece al trabajador con documento ${documentNumber}`;
}

/** The consult's `estado` (200) when the company contract has no vacation parameters. */
export const NO_PARAMS_STATE = 'sin información de parametrización de vacaciones en contrato empresa';

/** The consult's answer (422) when a worker's vacation days cannot be figured (BalanceProblem). */
export const BALANCE_PROBLEM_MESSAGES = {
  no_dates: 'El contrato no tiene fechas de inicio o fin configuradas correctamente.',
  no_company_contract: ruleMessage({ rule: 'noCompanyContract' }),
  no_risk_level: ruleMessage({ rule: 'noRiskLevel' }),
} as const;
