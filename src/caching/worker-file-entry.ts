import { fromDayNumber } from '../domain/index.ts';
import type { CompanyContract } from '../reference/types.ts';
import type { WorkerFileParts, WorkerFileRow } from '../reference/worker-files.ts';
import { intern, internBy, internListBy, internedNames } from './intern.ts';

/** The period ends repeat across every worker (the same fortnights): one shared name a day. */
const dayName = internedNames(fromDayNumber);

/**
 * The parts of a worker's row as the reference cache holds them: what repeats across the rows
 * (the calendar's lists, the contracts' places in them, the days of those who worked all of a
 * period, the pay of those paid alike, subgerencias, dates, the few company contracts) is held once
 * for all the rows that have it alike, and read-only, so never changed.
 */
export const SHARED_PARTS: WorkerFileParts = {
  days: (numbers) => internListBy(numbers, (l) => l.map(dayName)),
  numbers: (list) => internListBy(list, (l) => l.map(Number)),
  text: intern,
  companies: (found: readonly CompanyContract[]) =>
    internBy(`companies:${JSON.stringify(found)}`, () => new Map(found.map((c) => [c.id, c]))),
};

/**
 * What a row read with SHARED_PARTS takes in the heap, about, its calendar's lists being shared
 * with other workers: an estimate from its sizes, set once against the heap's own count.
 */
export function fileBytes(f: WorkerFileRow): number {
  const w = f.worker;
  return (
    300 + 120 * f.contracts.length + 20 * f.payroll.ends.length + 2 * (w.documentNumber.length + w.firstNames.length + w.lastNames.length)
  );
}
