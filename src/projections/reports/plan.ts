import type { Queryable } from '../../db/types.ts';
import {
  CONTINUOUS_DAYS,
  DAYS_PER_PERIOD,
  NOTICE_DAYS,
  addDays,
  governingContract,
  planYear,
  type HolidayLookup,
  type Plan,
  type PlanNeed,
  type PlanSubgerencia,
  type PlanWorker,
  type Span,
} from '../../domain/index.ts';
import { workerFilesPage, type WorkerFileRow } from '../../reference/worker-files.ts';
import type { Worker } from '../../reference/types.ts';
import { byWorker, liveRegisterOfWorkers, type RegisterEntry } from '../register/queries.ts';
import { accumulationLimit, periodsReport } from './periods.ts';

/** Workers read from the read models at a time: one page of files and their live records. */
const PAGE = 2000;

/** Why a worker who owes days is not handed to the planner at all. */
export type PlanSkip = 'sinParametrizacion';

export interface AnnualPlan {
  year: number;
  /** First day a line may start: the year's first, or the first that gives the 15 days' notice of CST art. 187. */
  from: string;
  plan: Plan;
  /** Workers who owe days but whose booking rules are not set up, so nothing can be proposed. */
  skipped: { workerId: number; subgerenciaId: string; reason: PlanSkip; daysOwed: number; need: PlanNeed }[];
  /** What each worker in the plan or left out owes, by worker id: the lines' and the lists' source. */
  /** `earliest`: the day from which the worker's days are earned, when a period earned in the year is taken; null: earned today. */
  /** Per worker who owes days: who they are (not their whole row: a plan of the company holds every worker). */
  owed: Map<number, { daysOwed: number; need: PlanNeed; worker: Worker; contractEnd: string | null; earliest: string | null }>;
}

const overlaps = (r: Span, from: string, to: string) => r.startDate <= to && r.endDate >= from;

/**
 * What a worker is proposed to take in `year`, from `today`'s ledger once every live record
 * (future bookings included) took its days. A line takes the whole days available now, which
 * only grow as payroll runs, so the booking passes rule (a) on any later start. A worker with
 * fewer than `least` days now but whose period in progress is earned within the year takes that
 * period's days once earned: `earliest` is the day after. The need ranks who goes first: days that
 * prescribe within the year (CST art. 488), then more periods pending than art. 190 lets
 * accumulate, then the rest.
 */
export function owedIn(file: WorkerFileRow, records: readonly RegisterEntry[], today: string, year: number, least: number) {
  const yearEnd = `${year}-12-31`;
  const report = periodsReport(file, records, today);
  const open = report.periods.filter((p) => !p.settled);
  const earned = open.filter((p) => p.earnedOn !== null && p.pendingUnits > 0);
  const now = Math.max(0, report.totals.pendingUnits);
  let units = now;
  let earliest: string | null = null;
  let count = earned.length;
  const current = open.find((p) => p.earnedOn === null && !p.closed && p.annualDays !== null);
  if (current && Math.floor(now / DAYS_PER_PERIOD) < least) {
    // The days still to work before the period is earned, as calendar days from today (a 360-day year).
    const earnsOn = addDays(today, Math.ceil(((DAYS_PER_PERIOD - current.daysWorked) * 365) / DAYS_PER_PERIOD));
    if (earnsOn < yearEnd) {
      units = now + (DAYS_PER_PERIOD - current.daysWorked) * current.annualDays!;
      earliest = addDays(earnsOn, 1);
      count++;
    }
  }
  const { limit } = accumulationLimit(file, today);
  const need: PlanNeed = earned.some((p) => p.prescribesOn !== null && p.prescribesOn <= yearEnd)
    ? 'prescribe'
    : count > limit
      ? 'acumula'
      : 'pendiente';
  return { daysOwed: Math.floor(units / DAYS_PER_PERIOD), need, pendingUnits: units, earliest };
}

/**
 * The annual vacation plan of `year` for these subgerencias (all when null): every worker with a
 * governing contract there who owes days, read page by page from the read models, handed to the
 * one planner (src/domain/plan.ts) with the bookings and closures already in the year.
 */
export async function annualPlan(
  q: Queryable,
  o: { year: number; subgerenciaIds: readonly string[] | null; today: string; calendar: HolidayLookup },
): Promise<AnnualPlan> {
  const yearStart = `${o.year}-01-01`;
  const yearEnd = `${o.year}-12-31`;
  const notice = addDays(o.today, NOTICE_DAYS);
  const from = notice > yearStart ? notice : yearStart;
  const wanted = o.subgerenciaIds ? new Set(o.subgerenciaIds) : null;
  const workers: PlanWorker[] = [];
  const units = new Map<string, { limit: number | null; occupied: Span[] }>();
  const skipped: AnnualPlan['skipped'] = [];
  const owed: AnnualPlan['owed'] = new Map();
  const pages = wanted ? [...wanted] : [undefined];
  const seen = new Set<number>();
  for (const unitFilter of pages) {
    for (let after = Number.MIN_SAFE_INTEGER; ;) {
      const files = await workerFilesPage(q, after, PAGE, unitFilter);
      if (files.length === 0) break;
      after = files.at(-1)!.worker.id;
      const records = byWorker(
        await liveRegisterOfWorkers(
          q,
          files.map((f) => f.worker.id),
        ),
      );
      for (const file of files) {
        const id = file.worker.id;
        if (seen.has(id)) continue;
        seen.add(id);
        const mine = records.get(id) ?? [];
        // Every live enjoyed record in the year occupies a place in its subgerencia, whoever owes days.
        for (const r of mine) {
          if (r.compensated || r.subgerenciaId === null || !overlaps(r, yearStart, yearEnd)) continue;
          if (wanted && !wanted.has(r.subgerenciaId)) continue;
          unitOf(units, r.subgerenciaId).occupied.push({ startDate: r.startDate, endDate: r.endDate });
        }
        const contract = governingContract(file.contracts, from);
        if (!contract || (wanted && !wanted.has(contract.subgerenciaId))) continue;
        const params = contract.companyContractId === null ? null : file.companyContracts.get(contract.companyContractId)?.vacationParams;
        const unit = unitOf(units, contract.subgerenciaId);
        if (params) {
          const max = params.maxPeopleOnVacation;
          // The strictest limit of the company contracts the subgerencia's people work under.
          if (max !== null) unit.limit = unit.limit === null ? max : Math.min(unit.limit, max);
        }
        if (!params) {
          // Nothing accrues without the company contract's vacation rules: HR sees the worker here rather than nowhere.
          skipped.push({
            workerId: id,
            subgerenciaId: contract.subgerenciaId,
            reason: 'sinParametrizacion',
            daysOwed: 0,
            need: 'pendiente',
          });
          owed.set(id, { daysOwed: 0, need: 'pendiente', worker: file.worker, contractEnd: contract.endDate, earliest: null });
          continue;
        }
        const o2 = owedIn(file, mine, o.today, o.year, Math.max(params.minEnjoyedDays, CONTINUOUS_DAYS));
        if (o2.daysOwed <= 0) continue;
        owed.set(id, { daysOwed: o2.daysOwed, need: o2.need, worker: file.worker, contractEnd: contract.endDate, earliest: o2.earliest });
        workers.push({
          workerId: id,
          subgerenciaId: contract.subgerenciaId,
          worksSaturday: false,
          daysOwed: o2.daysOwed,
          minimumDays: params.minEnjoyedDays,
          need: o2.need,
          pendingUnits: o2.pendingUnits,
          contractEnd: contract.endDate,
          earliest: o2.earliest,
          busy: mine
            .filter((r) => !r.compensated && overlaps(r, yearStart, yearEnd))
            .map((r) => ({ startDate: r.startDate, endDate: r.endDate })),
        });
      }
      if (files.length < PAGE) break;
    }
  }
  const subgerencias: PlanSubgerencia[] = [...units].map(([id, u]) => ({ id, limit: u.limit, occupied: u.occupied }));
  const plan = planYear({ year: o.year, from, workers, subgerencias, calendar: o.calendar });
  return { year: o.year, from, plan, skipped, owed };
}

function unitOf(units: Map<string, { limit: number | null; occupied: Span[] }>, id: string) {
  let u = units.get(id);
  if (!u) units.set(id, (u = { limit: null, occupied: [] }));
  return u;
}
