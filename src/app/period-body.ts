import type { PeriodReport } from '../projections/reports/periods.ts';

/** A period as callers read it. */
export function periodBody(p: PeriodReport) {
  return {
    contratoId: p.contractId,
    numero: p.number,
    desde: p.from,
    causadoEl: p.earnedOn,
    estado: p.earnedOn ? ('causado' as const) : p.closed ? ('proporcional' as const) : ('en curso' as const),
    diasLaborados: p.daysWorked,
    diasDescontados: { licenciaNoRemunerada: p.deducted.unpaidLeave, suspension: p.deducted.suspension },
    diasVacacionesAnuales: p.annualDays,
    contratoLiquidado: p.settled,
    diasCausados: p.accrued,
    diasDisfrutados: p.enjoyed,
    diasCompensados: p.compensated,
    diasPendientes: p.pending,
    exigibleDesde: p.enforceableFrom,
    prescribeEl: p.prescribesOn,
    prescrito: p.prescribed,
    art190SeisDias: p.sixDays,
    vacaciones: p.records.map((v) => ({ codigoPila: v.codigoPila, dias: v.days })),
  };
}
