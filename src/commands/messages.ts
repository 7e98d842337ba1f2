/** Business-rule messages, in Spanish as callers expect, with the figures involved. */
export const msg = {
  noContract: () => 'El trabajador no tiene un contrato vigente en la fecha de inicio',
  noCompanyContract: () => 'El contrato no tiene asociado un contrato empresa válido.',
  noVacationParams: () => 'El contrato empresa no tiene parametrización de vacaciones',
  noRiskLevel: () => 'No se encuentra configurado el nivel de riesgo del contrato.',
  notBusinessDay: (date: string) => `La fecha de inicio ${date} no es un día hábil para el trabajador`,
  notEnoughDays: (requested: number, available: string) =>
    `Los días solicitados (${requested}) superan los días disponibles (${available})`,
  belowMinimum: (requested: number, minimum: number) =>
    `Los días solicitados (${requested}) no cumplen el mínimo de ${minimum} días disfrutados`,
  advanceNotAllowed: (requested: number, available: string) =>
    `Los días solicitados (${requested}) superan los días disponibles (${available}) y el contrato empresa no permite vacaciones anticipadas`,
  advanceOverMaximum: (inAdvance: string, maximum: number) =>
    `Los días anticipados (${inAdvance}) superan el máximo de ${maximum} días de vacaciones anticipadas`,
  unitFull: (maximum: number, subgerencia: string, day: string) =>
    `Se alcanzó el máximo de ${maximum} personas de vacaciones al mismo tiempo en la subgerencia ${subgerencia} el ${day}`,
  compensationOverHalf: (compensated: string, periodDays: number, period: number, contractId: number, from: string) =>
    `Los días compensados en dinero (${compensated}) superarían la mitad de los ${periodDays} días del período ${period} del contrato ${contractId} (desde ${from}): mientras el contrato esté vigente solo puede pagarse en dinero hasta la mitad de cada período`,
  overlap: (code: string, start: string, end: string) =>
    `Las fechas se cruzan con otras vacaciones del trabajador (${code}, del ${start} al ${end})`,
};

/** Day balances shown with at most two decimals, as callers read them. */
export function formatDays(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
