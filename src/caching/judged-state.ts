import type { VacationRecord } from '../events/types.ts';
import type { JudgedVacation } from '../events/worker-state.ts';

/** The fields of a judged record that most records hold at their default. */
type Rare = Pick<JudgedVacation, 'continues' | 'interruptedOn' | 'daysReturned'>;
const COMMON: Rare = { continues: null, interruptedOn: null, daysReturned: 0 };
const STRIDE = 6;

/**
 * A worker's live records as a cache holds them for judging: one flat list of their fields,
 * STRIDE cells a record, and the fields most records hold at their default only for those that
 * do not. A record as an object of its own costs its header and hidden class beyond its cells, and a
 * cache of 50,000 workers holds hundreds of thousands of records. Records are made again, as
 * objects, when they are read: once or twice a request.
 */
export class RecordList {
  private readonly cells: readonly (string | number | boolean)[];
  private readonly rare: ReadonlyMap<number, Rare> | null;

  constructor(records: readonly JudgedVacation[]) {
    const cells = new Array<string | number | boolean>(records.length * STRIDE);
    let rare: Map<number, Rare> | null = null;
    records.forEach((v, i) => {
      const at = i * STRIDE;
      cells[at] = v.codigoPila;
      cells[at + 1] = v.recordId;
      cells[at + 2] = v.startDate;
      cells[at + 3] = v.endDate;
      cells[at + 4] = v.businessDays;
      cells[at + 5] = v.compensated;
      if ((v.continues ?? null) !== null || v.interruptedOn !== null || v.daysReturned !== 0)
        (rare ??= new Map()).set(i, { continues: v.continues ?? null, interruptedOn: v.interruptedOn, daysReturned: v.daysReturned });
    });
    this.cells = cells;
    this.rare = rare;
  }

  private record(i: number): JudgedVacation {
    const at = i * STRIDE;
    const c = this.cells;
    const r = this.rare?.get(i) ?? COMMON;
    return {
      codigoPila: c[at] as string,
      recordId: c[at + 1] as number,
      startDate: c[at + 2] as string,
      endDate: c[at + 3] as string,
      businessDays: c[at + 4] as number,
      compensated: c[at + 5] as boolean,
      deleted: false,
      continues: r.continues,
      interruptedOn: r.interruptedOn,
      daysReturned: r.daysReturned,
    };
  }

  get(code: string): JudgedVacation | undefined {
    for (let at = 0; at < this.cells.length; at += STRIDE) if (this.cells[at] === code) return this.record(at / STRIDE);
    return undefined;
  }

  values(): Iterable<JudgedVacation> {
    return Array.from({ length: this.length }, (_, i) => this.record(i));
  }

  get length(): number {
    return this.cells.length / STRIDE;
  }
}

/**
 * The part of `state` a judgement reads: its live records, each with only the fields read, the
 * dates given by `day` (which may share one string per date among many states). A deleted record
 * judges as one never recorded (a continuation of it is unknown either way), so none is kept: a
 * cache of judged states holds a fraction of the records' size.
 */
export function judgedState(
  state: { vacations: { values(): Iterable<VacationRecord & Pick<JudgedVacation, 'deleted' | 'interruptedOn' | 'daysReturned'>> } },
  day: (date: string) => string = (d) => d,
): { vacations: RecordList } {
  const live = [...state.vacations.values()]
    .filter((v) => !v.deleted)
    .map((v): JudgedVacation => ({
      codigoPila: v.codigoPila,
      recordId: v.recordId,
      startDate: day(v.startDate),
      endDate: day(v.endDate),
      businessDays: v.businessDays,
      compensated: v.compensated,
      deleted: false,
      continues: v.continues ?? null,
      interruptedOn: v.interruptedOn && day(v.interruptedOn),
      daysReturned: v.daysReturned,
    }));
  return { vacations: new RecordList(live) };
}

/**
 * What a judged state takes in the heap, about: its list and wrappers, and each record's cells and
 * code (an estimate from its sizes, set once against the heap's own count).
 */
export const judgedBytes = (state: { vacations: RecordList }): number => 150 + 100 * state.vacations.length;
