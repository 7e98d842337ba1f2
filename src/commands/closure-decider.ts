import { Days360, companyContractOf, isBusinessDay, type HolidayLookup } from '../domain/index.ts';
import type { ClosureExclusion, ClosureScope, DomainEvent, VacationRecord } from '../events/types.ts';
import { liveVacations, type WorkerState } from '../events/worker-state.ts';
import { createdEvents, newRecord, type Moment } from './decider-shared.ts';
import { evaluate, place } from './evaluate.ts';
import type { VacationFigures, VacationRequest, WorkerFile } from './types.ts';

/**
 * Collective vacations (DOMAIN "Collective vacations"): the employer closes one or more
 * subgerencias, or every subgerencia of a company contract, for one period. Pure: every worker's
 * file and state come in, the records and the workers left out come back.
 */
export interface ClosureRequest {
  scope: ClosureScope;
  startDate: string;
  days: number;
  worksSaturday: boolean;
}

export interface ClosureWorker {
  file: WorkerFile;
  state: WorkerState;
}

/** A worker the closure books: the figures of their record; `advanceUnits` of its days are taken in advance (360ths). */
export interface ClosureLine {
  figures: VacationFigures;
  advanceUnits: number;
}

export interface LeftOut {
  workerId: number;
  documentNumber: string;
  reason: ClosureExclusion;
  /** The fact behind the reason: the overlapping record's code, the contract's end, the missing setting. */
  detail: string;
}

export type ClosureJudgement =
  | { ok: true; lines: ClosureLine[]; excluded: LeftOut[] }
  | { ok: false; kind: 'closure_rules'; problem: 'notBusinessDay' | 'nobody' | 'allLeftOut' }
  | { ok: false; kind: 'closure_rules'; problem: 'belowMinimum'; minimum: number };

/** Whether a contract falls in the closure's scope. */
export const inClosureScope = (scope: ClosureScope, c: { subgerenciaId: string; companyContractId: number | null }): boolean =>
  scope.companyContractId !== null ? c.companyContractId === scope.companyContractId : scope.subgerenciaIds.includes(c.subgerenciaId);

const requestOf = (r: ClosureRequest): VacationRequest => ({
  startDate: r.startDate,
  days: r.days,
  // The employer grants the days a worker has not accrued yet: judged as an advance with no limit.
  advance: true,
  worksSaturday: r.worksSaturday,
  compensated: false,
  socialSecurityInPayroll: null,
});

/**
 * Each worker whose governing contract on the start date is in scope gets one enjoyed record, or
 * is left out with the reason: rules (e) and (f) apply per worker, (d) not among the closure's
 * own records (the unit closes), the advance limit not at all; rule (b) applies to the closure as
 * a whole. Workers come in id order and are judged in it, so the same data gives the same answer.
 */
export function judgeClosure(request: ClosureRequest, workers: readonly ClosureWorker[], calendar: HolidayLookup): ClosureJudgement {
  if (!isBusinessDay(request.startDate, request.worksSaturday, calendar))
    return { ok: false, kind: 'closure_rules', problem: 'notBusinessDay' };
  const vacation = requestOf(request);
  const lines: ClosureLine[] = [];
  const excluded: LeftOut[] = [];
  let minimum = 0;
  for (const { file, state } of workers) {
    const placement = place(vacation, file, calendar);
    const leave = (reason: ClosureExclusion, detail: string) =>
      excluded.push({ workerId: file.worker.id, documentNumber: file.worker.documentNumber, reason, detail });
    if (!placement) {
      // In scope by a contract that does not govern on the start: listed, since HR expects them.
      leave('sinContrato', request.startDate);
      continue;
    }
    if (!inClosureScope(request.scope, placement.contract)) continue;
    const params = companyContractOf(file, placement.contract)?.vacationParams ?? null;
    const ev = evaluate({ request: vacation, file, state, calendar, placement });
    const figures = ev.figures;
    const broken = ev.ok ? [] : ev.violations;
    const overlap = broken.find((v) => v.rule === 'overlap');
    const missing = broken.find((v) => v.rule === 'noCompanyContract' || v.rule === 'noVacationParams' || v.rule === 'noRiskLevel');
    const late = broken.find((v) => v.rule === 'endsAfterContract');
    if (missing || !params || !figures) leave('sinParametrizacion', missing?.rule ?? 'noVacationParams');
    else if (overlap && overlap.rule === 'overlap') leave('solapamiento', `${overlap.codigoPila}|${overlap.startDate}|${overlap.endDate}`);
    else if (late && late.rule === 'endsAfterContract') leave('finContrato', `${late.endDate}|${late.contractEnd}`);
    else {
      minimum = Math.max(minimum, params.minEnjoyedDays);
      const requested = Days360.fromWholeDays(request.days).units;
      const advanceUnits = Math.max(0, requested - figures.availableUnits);
      lines.push({ figures: { ...figures, advance: advanceUnits > 0 }, advanceUnits });
    }
  }
  if (lines.length === 0 && excluded.length === 0) return { ok: false, kind: 'closure_rules', problem: 'nobody' };
  if (request.days < minimum) return { ok: false, kind: 'closure_rules', problem: 'belowMinimum', minimum };
  return { ok: true, lines, excluded };
}

/** What booking a judged closure writes: each worker's record, code and places, then the closure itself. */
export function closureEvents(
  closure: { closureId: string; request: ClosureRequest; userId: number },
  judged: { lines: readonly ClosureLine[]; excluded: readonly LeftOut[] },
  moment: Moment,
  recordIds: readonly number[],
): { perWorker: Map<number, DomainEvent[]>; closure: DomainEvent; records: VacationRecord[] } {
  const perWorker = new Map<number, DomainEvent[]>();
  const records: VacationRecord[] = [];
  judged.lines.forEach((line, i) => {
    const record: VacationRecord = {
      ...newRecord(line.figures, { ...moment, recordId: recordIds[i]! }, null, null),
      closureId: closure.closureId,
    };
    records.push(record);
    perWorker.set(record.workerId, createdEvents(record));
  });
  const { request } = closure;
  return {
    perWorker,
    records,
    closure: {
      type: 'CollectiveClosureScheduled',
      data: {
        closureId: closure.closureId,
        scope: request.scope,
        startDate: request.startDate,
        businessDays: request.days,
        worksSaturday: request.worksSaturday,
        records: records.map((r) => ({ codigoPila: r.codigoPila, workerId: r.workerId, documentNumber: r.documentNumber })),
        excluded: [...judged.excluded],
        scheduledByUserId: closure.userId,
        scheduledAt: moment.nowIso,
      },
    },
  };
}

/** The closure's records still live and pending in a worker's state. */
export function pendingOf(state: WorkerState, codes: ReadonlySet<string>) {
  return liveVacations(state).filter((v) => codes.has(v.codigoPila) && !(v as { approved?: boolean }).approved);
}
