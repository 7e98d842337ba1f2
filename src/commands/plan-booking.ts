import { randomBytes } from 'node:crypto';
import { companyContractOf, type HolidayLookup } from '../domain/index.ts';
import { unitStream, workerStream } from '../events/streams.ts';
import type { VacationRecord } from '../events/types.ts';
import { foldWorker, type WorkerState } from '../events/worker-state.ts';
import { decodeStream, type EventWrite } from '../store/aggregate-port.ts';
import { WrongExpectedRevisionError, comparePositions, type Position } from '../store/types.ts';
import { createdEvents, newRecord, reaches, type Moment } from './decider-shared.ts';
import { evaluate, place, type Placement } from './evaluate.ts';
import { readWhole, writtenUnder, type CommandEvents } from './handle.ts';
import { monthsOf, occupancyOf, type UnitOccupancy } from './occupancy.ts';
import { streamsOf } from './streams-of.ts';
import { metadataOf, type Actor, type Scope, type VacationFigures, type VacationRequest, type WorkerFile } from './types.ts';
import type { RuleViolation } from './violations.ts';

/**
 * The annual plan booked as one decision (src/domain/plan.ts proposes it; HR may move starts):
 * every line is judged as an individual add would judge it, in order, each accepted line taking
 * its place before the next is judged, and either every line is written in one append or none is.
 */

/** One line of the plan: enjoyed days from a start, as the plan proposes them. */
export interface PlanLine {
  documentNumber: string;
  startDate: string;
  days: number;
}

export type LineFailure = { kind: 'worker_not_found' } | { kind: 'out_of_scope' } | { kind: 'rules'; violations: RuleViolation[] };

export interface RefusedLine {
  /** The line's place in the request, from 0. */
  index: number;
  documentNumber: string;
  failure: LineFailure;
}

export type PlanBookingOutcome =
  | { ok: true; value: { records: VacationRecord[] }; position: Position }
  /** The same worker on two lines: `indexes` are theirs, from 0. */
  | { ok: false; kind: 'repeated'; documentNumber: string; indexes: [number, number] }
  | { ok: false; kind: 'refused'; lines: RefusedLine[] }
  | { ok: false; kind: 'busy' };

/** What the booking reads of the reference data: the workers' files, by document number (missing ones left out). */
export interface PlanReference {
  filesByDocuments(documentNumbers: readonly string[]): Promise<Map<string, WorkerFile>>;
}

export interface PlanBookingDeps {
  events: CommandEvents;
  reference: PlanReference;
  calendar: HolidayLookup;
  nextRecordId: () => Promise<number>;
  now?: () => Date;
  today: () => string;
  randomHex8?: () => string;
  maxAttempts?: number;
}

/** A plan line as a request: enjoyed, not in advance, no Saturdays, nothing said of social security. */
export const planRequest = (l: PlanLine): VacationRequest => ({
  startDate: l.startDate,
  days: l.days,
  advance: false,
  worksSaturday: false,
  compensated: false,
  socialSecurityInPayroll: null,
});

/** What judging one line reads: the worker's file (null: no such worker), where the line falls, and the worker's state. */
export interface LineRead {
  line: PlanLine;
  file: WorkerFile | null;
  placement: Placement | null;
  state: WorkerState;
}

export type PlanJudgement = { ok: true; figures: VacationFigures[] } | { ok: false; refused: RefusedLine[] };

/**
 * Judges the lines in order. `occupancies` holds, per subgerencia whose months were read (one
 * under a limit of people at once), its bookings: each accepted line is added to them, so that a
 * later line of the plan counts it for rule (d) exactly as an add after it would. Nothing else is
 * read or changed.
 */
export function judgePlan(
  lines: readonly LineRead[],
  occupancies: ReadonlyMap<string, UnitOccupancy>,
  calendar: HolidayLookup,
  scope: Scope,
): PlanJudgement {
  const figures: VacationFigures[] = [];
  const refused: RefusedLine[] = [];
  for (const [index, { line, file, placement, state }] of lines.entries()) {
    const refuse = (failure: LineFailure) => refused.push({ index, documentNumber: line.documentNumber, failure });
    if (!file) {
      refuse({ kind: 'worker_not_found' });
      continue;
    }
    if (!reaches(scope, placement?.contract.subgerenciaId ?? null)) {
      refuse({ kind: 'out_of_scope' });
      continue;
    }
    const occupancy = placement ? occupancies.get(placement.contract.subgerenciaId) : undefined;
    const ev = evaluate({ request: planRequest(line), file, state, calendar, occupancy, placement });
    if (!ev.ok) {
      refuse({ kind: 'rules', violations: ev.violations });
      continue;
    }
    figures.push(ev.figures);
    // A code of its own until the record is made: the line's place counts for the lines after it.
    const { workerId, startDate, endDate } = ev.figures;
    occupancy?.bookings.set(`plan-${index}`, { codigoPila: `plan-${index}`, workerId, startDate, endDate });
  }
  return refused.length ? { ok: false, refused } : { ok: true, figures };
}

/** The first two lines naming the same worker, if any. */
export function repeatedLine(lines: readonly PlanLine[]): { documentNumber: string; indexes: [number, number] } | undefined {
  const seen = new Map<string, number>();
  for (const [i, l] of lines.entries()) {
    const first = seen.get(l.documentNumber);
    if (first !== undefined) return { documentNumber: l.documentNumber, indexes: [first, i] };
    seen.set(l.documentNumber, i);
  }
  return undefined;
}

/**
 * Books a plan all or nothing. The append names every worker's stream at the revision its line
 * was judged on, and every month stream of a subgerencia under a limit at the revision its
 * occupancy was read at: an individual add landing on any of them in between makes the plan be
 * judged again on fresh reads (up to `maxAttempts`), so the plan and the add never both take the
 * last place of a day. The events are those of an individual add, line by line.
 */
export class PlanBooking {
  private readonly now: () => Date;
  private readonly hex: () => string;

  constructor(private readonly deps: PlanBookingDeps) {
    this.now = deps.now ?? (() => new Date());
    this.hex = deps.randomHex8 ?? (() => randomBytes(4).toString('hex'));
  }

  async book(lines: readonly PlanLine[], actor: Actor): Promise<PlanBookingOutcome> {
    const repeated = repeatedLine(lines);
    if (repeated) return { ok: false, kind: 'repeated', ...repeated };
    const { calendar } = this.deps;
    const found = await this.deps.reference.filesByDocuments(lines.map((l) => l.documentNumber));
    const files = lines.map((l) => found.get(l.documentNumber) ?? null);
    const byWorker = new Map<number, number>();
    for (const [i, f] of files.entries()) {
      if (!f) continue;
      const first = byWorker.get(f.worker.id);
      if (first !== undefined) return { ok: false, kind: 'repeated', documentNumber: lines[i]!.documentNumber, indexes: [first, i] };
      byWorker.set(f.worker.id, i);
    }
    const placements = lines.map((l, i) => {
      const file = files[i];
      return file ? (place(planRequest(l), file, calendar) ?? null) : null;
    });
    const months = limitedMonths(lines, files, placements);
    if (actor.resumes) {
      const earlier = await this.writtenEarlier([...byWorker.keys()], actor);
      if (earlier) return earlier;
    }
    for (let attempt = 0; attempt < (this.deps.maxAttempts ?? 5); attempt++) {
      const read = await this.read([...byWorker.keys()], months);
      const reads: LineRead[] = lines.map((line, i) => {
        const file = files[i] ?? null;
        return { line, file, placement: placements[i] ?? null, state: file ? read.states.get(file.worker.id)! : foldWorker([]) };
      });
      const judged = judgePlan(reads, read.occupancies, calendar, actor.scope ?? null);
      if (!judged.ok) return { ok: false, kind: 'refused', lines: judged.refused };
      const now = this.now();
      const moment: Moment = { nowIso: now.toISOString(), epochMillis: now.getTime(), randomHex8: this.hex() };
      const records: VacationRecord[] = [];
      const writes = new Map<string, EventWrite>();
      for (const f of judged.figures) {
        const record = newRecord(f, { ...moment, recordId: await this.deps.nextRecordId() }, null, null);
        records.push(record);
        for (const w of streamsOf(createdEvents(record), read.states.get(f.workerId)!, read.occupancies.get(f.subgerenciaId))) {
          const same = writes.get(w.stream);
          // Lines of one subgerencia share its month streams, read once: one write each, at that revision.
          if (same) same.events.push(...w.events);
          else writes.set(w.stream, { ...w, events: [...w.events] });
        }
      }
      try {
        const { position } = await this.deps.events.append([...writes.values()], metadataOf(actor, now, this.deps.today()));
        return { ok: true, value: { records }, position };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
      }
    }
    return { ok: false, kind: 'busy' };
  }

  /**
   * What an earlier run of the same request wrote before its answer was lost, found by the
   * idempotency key its events carry: the plan is one append, so every line's record is there
   * under the key, or none is.
   */
  private async writtenEarlier(workerIds: readonly number[], actor: Actor): Promise<PlanBookingOutcome | undefined> {
    if (actor.idempotencyKey === null || workerIds.length === 0) return undefined;
    const stored = await readWhole(
      this.deps.events,
      workerIds.map((id) => workerStream(id)),
    );
    const records: VacationRecord[] = [];
    let position: Position | undefined;
    for (const id of workerIds) {
      const mine = stored.get(workerStream(id))!.filter((e) => writtenUnder(e, actor));
      const created = decodeStream(mine).find((e) => e.event.type === 'VacationCreated')?.event;
      if (created?.type !== 'VacationCreated') return undefined;
      records.push(created.data);
      const last = mine.at(-1)!.position;
      if (!position || comparePositions(last, position) > 0) position = last;
    }
    return { ok: true, value: { records }, position: position! };
  }

  /** The workers' states and the occupancy of each subgerencia over its months, read fresh. */
  private async read(workerIds: readonly number[], months: ReadonlyMap<string, readonly string[]>) {
    const unitStreams = [...months].flatMap(([unit, list]) => list.map((month) => unitStream(unit, month)));
    const stored = await readWhole(this.deps.events, [...workerIds.map((id) => workerStream(id)), ...unitStreams]);
    const states = new Map(workerIds.map((id) => [id, foldWorker(decodeStream(stored.get(workerStream(id))!))]));
    const occupancies = new Map<string, UnitOccupancy>();
    for (const [unit, list] of months) {
      occupancies.set(
        unit,
        occupancyOf(unit, list, (month) => decodeStream(stored.get(unitStream(unit, month))!)),
      );
    }
    return { states, occupancies };
  }
}

/**
 * The months to read per subgerencia: every month any line there touches, for each subgerencia
 * where some line falls under a limit of people at once. Without a limit nothing is read, as for
 * an add: its places go in with no expected revision.
 */
function limitedMonths(
  lines: readonly PlanLine[],
  files: readonly (WorkerFile | null)[],
  placements: readonly (Placement | null)[],
): Map<string, string[]> {
  const touched = new Map<string, Set<string>>();
  const limited = new Set<string>();
  placements.forEach((p, i) => {
    const file = files[i];
    if (!p || !file) return;
    const unit = p.contract.subgerenciaId;
    if ((companyContractOf(file, p.contract)?.vacationParams?.maxPeopleOnVacation ?? null) !== null) limited.add(unit);
    const set = touched.get(unit) ?? new Set<string>();
    for (const m of monthsOf(lines[i]!.startDate, p.endDate)) set.add(m);
    touched.set(unit, set);
  });
  return new Map([...touched].filter(([unit]) => limited.has(unit)).map(([unit, set]) => [unit, [...set].sort()]));
}
