import type { PlanNeed, Unplaced } from '../domain/index.ts';
import type { AnnualPlan, PlanSkip } from '../projections/reports/plan.ts';

/**
 * The annual vacation plan as the API, the panel and the CLI show it: one wording of every line,
 * every worker left out, and the headline figures.
 */

/** The years a plan is proposed for on `today`: this one and the next. */
export function planYears(today: string): number[] {
  const current = Number(today.slice(0, 4));
  return [current, current + 1];
}

export const NEED_TEXT: Record<PlanNeed, string> = {
  prescribe: 'Días que prescriben en el año (CST art. 488)',
  acumula: 'Acumularía más periodos pendientes de los que permite el CST art. 190',
  pendiente: 'Días pendientes',
};

export function unplacedText(
  reason: Unplaced | PlanSkip,
  o: { daysOwed: number; contractEnd: string | null; year: number; earliest?: string | null },
): string {
  switch (reason) {
    case 'sinCupo':
      return `No hay un tramo de ${o.daysOwed} días hábiles en ${o.year} sin superar el límite de personas a la vez ni cruzarse con otras vacaciones`;
    case 'finContrato':
      if (o.earliest)
        return `Sus días se causan el ${o.earliest}: no alcanza a tomar ${o.daysOwed} días hábiles antes del fin de ${o.contractEnd ? `su contrato (${o.contractEnd})` : o.year}`;
      return o.contractEnd
        ? `Su contrato termina el ${o.contractEnd}: no alcanza a tomar ${o.daysOwed} días hábiles antes`
        : `No quedan en ${o.year} días hábiles suficientes para ${o.daysOwed} días`;
    case 'pocosDias':
      return `Debe ${o.daysOwed} días, menos que el mínimo disfrutado o los 6 días continuos del CST art. 190`;
    case 'sinSubgerencia':
      return 'Su subgerencia no está en el plan';
    case 'sinParametrizacion':
      return 'Su contrato de empresa no tiene parámetros de vacaciones';
  }
}

/** The plan's body: each proposed line, each worker left out with the reason, and the totals. */
export function planBody(p: AnnualPlan, subgerenciaIds: readonly string[] | null) {
  const who = (id: number) => {
    const w = p.owed.get(id)!.worker;
    return { vacAsociado: id, documentoAsociado: w.documentNumber, nombre: `${w.firstNames} ${w.lastNames}`.trim() };
  };
  const leftOut = [...p.plan.leftOut.map((l) => ({ ...l, daysOwed: p.owed.get(l.workerId)!.daysOwed })), ...p.skipped].map((l) => ({
    ...who(l.workerId),
    subgerenciaId: l.subgerenciaId,
    diasPendientes: l.daysOwed,
    necesidad: l.need,
    motivo: l.reason,
    mensaje: unplacedText(l.reason, {
      daysOwed: l.daysOwed,
      contractEnd: p.owed.get(l.workerId)!.contractEnd,
      earliest: p.owed.get(l.workerId)!.earliest,
      year: p.year,
    }),
  }));
  return {
    anio: p.year,
    desde: p.from,
    subgerencias: subgerenciaIds ? [...subgerenciaIds] : null,
    totales: {
      colocados: p.plan.totals.placed,
      sinColocar: leftOut.length,
      diasQuePrescribenSinColocar:
        p.plan.totals.prescribingDaysLeft + p.skipped.filter((s) => s.need === 'prescribe').reduce((n, s) => n + s.daysOwed, 0),
    },
    lineas: p.plan.lines.map((l) => ({
      ...who(l.workerId),
      subgerenciaId: l.subgerenciaId,
      vacFechaInicio: l.startDate,
      vacFechaFinal: l.endDate,
      vacDiasVacaciones: l.days,
      necesidad: l.need,
      diasCausadosDesde: p.owed.get(l.workerId)!.earliest,
    })),
    sinColocar: leftOut,
  };
}
