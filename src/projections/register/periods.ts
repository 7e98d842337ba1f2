import { workerPeriods } from '../../commands/worker-periods.ts';
import { Days360, addDays, enforceableFrom, prescribesOn, toDecimal2 } from '../../domain/index.ts';
import type { WorkerFile } from '../../commands/types.ts';
import type { RegisterEntry } from './queries.ts';

/** A pending period this close to prescribing is named in the warnings. */
export const PRESCRIPTION_NOTICE_DAYS = 180;
/** Periods with days pending a worker may hold (CST art. 190), and technical or trusted staff. */
export const ACCUMULATION_LIMIT = 2;
export const ACCUMULATION_LIMIT_EXTENDED = 4;

export interface PeriodReport {
  contractId: number;
  number: number;
  from: string;
  /** Null while the period is in progress. */
  earnedOn: string | null;
  daysWorked: number;
  annualDays: number | null;
  /** Days, to two decimals. */
  accrued: number;
  enjoyed: number;
  compensated: number;
  pending: number;
  enforceableFrom: string | null;
  prescribesOn: string | null;
  prescribed: boolean;
  /** Where the days of each record went. */
  records: { codigoPila: string; days: number }[];
  /** Exact pending balance in 360ths, for sums and values. */
  pendingUnits: number;
}

export type WarningKind = 'acumulacion' | 'prescripcion' | 'prescrito' | 'posterior';

export interface PeriodsReport {
  asOf: string;
  periods: PeriodReport[];
  totals: { accrued: number; enjoyed: number; compensated: number; pending: number; pendingUnits: number };
  warnings: { kind: WarningKind; message: string }[];
}

const days = (units: number) => toDecimal2(Days360.fromUnits(units));
const shown = (units: number) => {
  const d = days(units);
  return Number.isInteger(d) ? String(d) : d.toFixed(2);
};

/**
 * A worker's accrual periods on `asOf`: each main contract's periods of 360 days worked (payroll
 * ended by `asOf`), the live records' days applied to the oldest pending period first, the dates
 * each period becomes enforceable and prescribes, and the warnings an employer must heed.
 */
export function periodsReport(
  file: Pick<WorkerFile, 'contracts' | 'companyContracts' | 'payroll'>,
  records: readonly RegisterEntry[],
  asOf: string,
): PeriodsReport {
  const { periods, allocation } = workerPeriods(file, records, asOf);
  const reports: PeriodReport[] = periods.map((p, i) => {
    const use = allocation.periods[i]!;
    const prescribes = p.earnedOn ? prescribesOn(p.earnedOn) : null;
    return {
      contractId: p.contractId,
      number: p.number,
      from: p.from,
      earnedOn: p.earnedOn,
      daysWorked: p.daysWorked,
      annualDays: p.annualDays,
      accrued: days(p.accruedUnits),
      enjoyed: days(use.enjoyedUnits),
      compensated: days(use.compensatedUnits),
      pending: days(use.pendingUnits),
      enforceableFrom: p.earnedOn ? enforceableFrom(p.earnedOn) : null,
      prescribesOn: prescribes,
      prescribed: prescribes !== null && prescribes <= asOf && use.pendingUnits > 0,
      records: [],
      pendingUnits: use.pendingUnits,
    };
  });
  for (const r of records) {
    for (const part of allocation.byRecord.get(r.codigoPila) ?? []) {
      reports[part.period]!.records.push({ codigoPila: r.codigoPila, days: days(part.units) });
    }
  }
  const accruedUnits = periods.reduce((s, p) => s + p.accruedUnits, 0);
  const sum = (pick: (u: (typeof allocation.periods)[number]) => number) => allocation.periods.reduce((s, u) => s + pick(u), 0);
  // Taken days count in full even when no period could hold them (no contract has started).
  const pendingUnits = accruedUnits - records.reduce((s, r) => s + r.businessDays * 360, 0);
  return {
    asOf,
    periods: reports,
    totals: {
      accrued: days(accruedUnits),
      enjoyed: days(sum((u) => u.enjoyedUnits)),
      compensated: days(sum((u) => u.compensatedUnits)),
      pending: days(pendingUnits),
      pendingUnits,
    },
    warnings: warningsOf(file, reports, asOf),
  };
}

function warningsOf(file: Pick<WorkerFile, 'contracts'>, reports: readonly PeriodReport[], asOf: string): PeriodsReport['warnings'] {
  const warnings: PeriodsReport['warnings'] = [];
  const owed = reports.filter((p) => p.earnedOn !== null && p.pendingUnits > 0);
  const extended = file.contracts.some(
    (c) =>
      !c.additional && c.technicalOrTrusted && c.startDate !== null && c.startDate <= asOf && (c.endDate === null || c.endDate >= asOf),
  );
  const limit = extended ? ACCUMULATION_LIMIT_EXTENDED : ACCUMULATION_LIMIT;
  if (owed.length > limit) {
    warnings.push({
      kind: 'acumulacion',
      message: `El trabajador tiene ${owed.length} períodos causados con días pendientes; el artículo 190 del CST permite acumular hasta ${limit}${extended ? ' para personal técnico, especializado, de confianza o de manejo' : ''}`,
    });
  }
  const notice = addDays(asOf, PRESCRIPTION_NOTICE_DAYS);
  for (const p of owed) {
    const where = `del período ${p.number} del contrato ${p.contractId}`;
    if (p.prescribed) {
      warnings.push({
        kind: 'prescrito',
        message: `Los ${shown(p.pendingUnits)} días pendientes ${where} prescribieron el ${p.prescribesOn} (artículo 488 del CST)`,
      });
    } else if (p.prescribesOn! <= notice) {
      warnings.push({
        kind: 'prescripcion',
        message: `Los ${shown(p.pendingUnits)} días pendientes ${where} prescriben el ${p.prescribesOn} (artículo 488 del CST)`,
      });
    }
  }
  return warnings;
}
