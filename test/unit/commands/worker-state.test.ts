import { describe, expect, it } from 'vitest';
import { judgedBytes, judgedState } from '../../../src/caching/judged-state.ts';
import { decide, type VacationCommand } from '../../../src/commands/decide.ts';
import { evaluate } from '../../../src/commands/evaluate.ts';
import {
  emptyWorkerState,
  evolve,
  foldOnto,
  foldWorker,
  liveVacations,
  recordsOf,
  stateOf,
  type WorkerState,
} from '../../../src/events/worker-state.ts';
import type { DomainEvent, VacationRecord } from '../../../src/events/types.ts';
import { approve, calendar, create, edit, interrupt, params, remove, request, unitOf, workerFile } from './builders.ts';

const withRevisions = (events: DomainEvent[]) => events.map((event, revision) => ({ event, revision }));
const eventByEvent = (events: DomainEvent[]): WorkerState =>
  events.reduce((state, event, revision) => ({ ...evolve(state, event), revision }), emptyWorkerState());

/** A worker's stream written by the decider itself: every kind of event a worker stream holds. */
function stream(): DomainEvent[] {
  const events: DomainEvent[] = [];
  const occupancy = unitOf('SG-OPS', []);
  const take = (command: VacationCommand): VacationRecord | undefined => {
    const d = decide(command, foldWorker(withRevisions(events)));
    if (!d.ok) throw new Error(JSON.stringify(d));
    // The worker stream's share: the places booked and the code assigned go to streams of their own.
    events.push(...d.events.filter((e) => e.type !== 'SlotsBooked' && e.type !== 'SlotsReleased' && e.type !== 'PilaCodeAssigned'));
    return d.events.find((e) => e.type === 'VacationCreated')?.data as VacationRecord | undefined;
  };
  const first = take(create({ startDate: '2026-01-05', days: 15 }, { occupancy, recordId: 1, n: 1 }))!.codigoPila;
  take(approve(first));
  take(interrupt(first, '2026-01-15', '2026-01-15', 'incapacidad', 1));
  const second = take(create({ startDate: '2026-03-02', days: 6 }, { occupancy, recordId: 4, n: 4 }))!.codigoPila;
  const edited = take(edit(second, { startDate: '2026-03-09', days: 6 }, { occupancy, recordId: 5, n: 5 }))!;
  take(remove(edited.codigoPila));
  // A historic vacation as the import records it: approved or not by its row.
  events.push({ type: 'VacationImported', data: { ...edited, codigoPila: 'VAC_HISTORIC', recordId: 90, approved: true } });
  events.push({ type: 'SomethingNewer', data: {} } as unknown as DomainEvent);
  return events;
}

describe('a worker stream folded', () => {
  it('gives in one pass the state evolve() gives event by event, revisions included, for every kind of event', () => {
    const events = stream();
    const last = foldWorker(withRevisions(events));
    expect(last.revision).toBe(events.length - 1);
    expect(last.vacations.get('VAC_HISTORIC')).toMatchObject({ approved: true, deleted: false, interruptedOn: null, daysReturned: 0 });
    expect([...last.vacations.values()].filter((v) => v.interruptedOn !== null)).toHaveLength(1);
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'VacationCreated',
        'VacationApproved',
        'VacationInterrupted',
        'VacationEditStarted',
        'VacationDeleted',
        'VacationImported',
        'SomethingNewer',
      ]),
    );
    for (let n = 0; n <= events.length; n++)
      expect(foldWorker(withRevisions(events.slice(0, n)))).toEqual(eventByEvent(events.slice(0, n)));
  });

  it('never changes a state it gave before: states folded from one stream share records safely', () => {
    const events = stream();
    const early = foldWorker(withRevisions(events.slice(0, 1)));
    const copy = structuredClone(early);
    foldWorker(withRevisions(events));
    expect(early).toEqual(copy);
    expect([...early.vacations.values()][0]).toMatchObject({ approved: false, interruptedOn: null, deleted: false });
  });
});

describe('a stored state carried on', () => {
  it('folds what follows a state onto it as a fold of the whole stream would, wherever the stream is cut', () => {
    const events = withRevisions(stream());
    for (let n = 0; n <= events.length; n++) {
      const carried = foldOnto(foldWorker(events.slice(0, n)), events.slice(n));
      expect(carried.vacations).toEqual(foldWorker(events).vacations);
    }
  });

  it('skips what the state holds already: a batch folded twice changes nothing', () => {
    const events = withRevisions(stream());
    const once = foldOnto(emptyWorkerState(), events.slice(0, 5));
    expect(foldOnto(once, events.slice(0, 5))).toBe(once);
    expect(foldOnto(once, events.slice(2, 8))).toEqual(foldOnto(once, events.slice(5, 8)));
  });

  it('comes back from its records as JSON as the same state, records in the same order', () => {
    const state = foldWorker(withRevisions(stream()));
    const back = stateOf(state.revision, JSON.parse(JSON.stringify(recordsOf(state))));
    expect(back).toEqual(state);
    expect([...back.vacations.keys()]).toEqual([...state.vacations.keys()]);
  });
});

describe('a judged state (what calculate keeps of a worker)', () => {
  const events = withRevisions(stream());
  const full = foldWorker(events);
  const interrupted = [...full.vacations.values()].find((v) => v.interruptedOn !== null)!.codigoPila;
  const deleted = [...full.vacations.values()].find((v) => v.deleted)!.codigoPila;
  const requests = [
    request({ startDate: '2026-01-05', days: 6 }),
    request({ startDate: '2026-01-13', days: 10, advance: true }),
    request({ startDate: '2026-03-09', days: 6 }),
    request({ startDate: '2026-05-04', days: 3, compensated: true }),
    request({ startDate: '2026-05-04', days: 8, compensated: true }),
    request({ startDate: '2026-06-01', days: 2, continues: interrupted }),
    request({ startDate: '2026-06-01', days: 40, continues: interrupted }),
    request({ startDate: '2026-06-01', days: 2, continues: deleted }),
    request({ startDate: '2026-06-01', days: 2, continues: 'VAC_NEVER' }),
  ];
  const file = workerFile({ params: params({ compensationLimit: 'half' }) });

  it('judges every request as the whole state does, wherever the stream is cut, also read back from JSON', () => {
    let judged = 0;
    for (let n = 0; n <= events.length; n++) {
      const state = foldWorker(events.slice(0, n));
      const stored = stateOf(state.revision, JSON.parse(JSON.stringify(recordsOf(state))));
      for (const r of requests) {
        const whole = evaluate({ request: r, file, state, calendar });
        expect(evaluate({ request: r, file, state: judgedState(stored), calendar })).toEqual(whole);
        judged += whole.ok ? 0 : whole.violations.length;
      }
    }
    // The cases judged include refusals of every kind the records decide.
    expect(judged).toBeGreaterThan(20);
  });

  it('keeps the live records only, with the fields judging reads, and finds them by code', () => {
    const judged = judgedState(full);
    const live = liveVacations(full);
    expect(judged.vacations.length).toBe(live.length);
    expect([...judged.vacations.values()]).toEqual(
      live.map((v) => ({
        codigoPila: v.codigoPila,
        recordId: v.recordId,
        startDate: v.startDate,
        endDate: v.endDate,
        businessDays: v.businessDays,
        compensated: v.compensated,
        deleted: false,
        continues: v.continues ?? null,
        interruptedOn: v.interruptedOn,
        daysReturned: v.daysReturned,
      })),
    );
    expect(judged.vacations.get(interrupted)).toMatchObject({ interruptedOn: full.vacations.get(interrupted)!.interruptedOn });
    expect(judged.vacations.get(deleted)).toBeUndefined();
    expect(judgedBytes(judged)).toBeGreaterThan(judgedBytes(judgedState(emptyWorkerState())));
  });
});
