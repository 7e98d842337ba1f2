import { describe, expect, it } from 'vitest';
import { decide, type VacationCommand } from '../../../src/commands/decide.ts';
import type { UnitOccupancy } from '../../../src/commands/occupancy.ts';
import { streamsOf } from '../../../src/commands/streams-of.ts';
import { movesPlaces } from '../../../src/events/places.ts';
import { isUnitStream } from '../../../src/events/streams.ts';
import { occupancyProjector } from '../../../src/projections/occupancy/projector.ts';
import type { DomainEvent, VacationRecord } from '../../../src/events/types.ts';
import { approve, create, edit, interrupt, params, remove, stateOf, unitOf, workerFile } from './builders.ts';

/** A worker's stream as the store holds it: the state folded to its last revision. */
const at = (events: DomainEvent[]) => ({ ...stateOf(events), revision: events.length - 1 });

/** The writes of a command decided on `events`, as [stream, expected revision, event types]. */
function writes(events: DomainEvent[], command: VacationCommand, occupancy?: UnitOccupancy) {
  const state = at(events);
  const d = decide(command, state);
  if (!d.ok) throw new Error(JSON.stringify(d));
  return streamsOf(d.events, state, occupancy).map((w) => [w.stream, w.expectedRevision, w.events.map((e) => e.type)]);
}

function withOne() {
  const occupancy = unitOf('SG-OPS', []);
  const d = decide(create({}, { occupancy, recordId: 7 }), at([]));
  if (!d.ok) throw new Error(JSON.stringify(d));
  const worker = d.events.filter((e) => e.type === 'VacationCreated');
  return { code: (worker[0]!.data as VacationRecord).codigoPila, events: worker };
}

describe('the streams a decision is written to', () => {
  it('a creation: the worker stream, the code stream that must not exist, and the month read at its revision', () => {
    const occupancy = unitOf('SG-OPS', []);
    const [, pila] = writes([], create({}, { occupancy }), occupancy);
    expect(writes([], create({}, { occupancy }), occupancy)).toEqual([
      ['worker-1001', 'no_stream', ['VacationCreated']],
      [pila![0], 'no_stream', ['PilaCodeAssigned']],
      ['unit-SG-OPS-2026-01', 'no_stream', ['SlotsBooked']],
    ]);
    expect(pila![0]).toMatch(/^pila-VAC_/);
  });

  it('a period across two months books both month streams, each at the revision read', () => {
    const occupancy = unitOf('SG-OPS', [{ code: 'X', workerId: 2, start: '2026-01-02', end: '2026-01-03' }]);
    const units = writes([], create({ startDate: '2026-01-20' }, { occupancy }), occupancy).filter((w) => String(w[0]).startsWith('unit-'));
    expect(units).toEqual([
      ['unit-SG-OPS-2026-01', 0, ['SlotsBooked']],
      ['unit-SG-OPS-2026-02', 'no_stream', ['SlotsBooked']],
    ]);
  });

  it('without a limit of people at once nothing was read, and the months are written with no expectation', () => {
    const file = workerFile({ params: params({ maxPeopleOnVacation: null }) });
    expect(writes([], create({}, { file }))[2]).toEqual(['unit-SG-OPS-2026-01', 'any', ['SlotsBooked']]);
  });

  it('the occupancy of another subgerencia guards none of the months', () => {
    const other = unitOf('SG-ADM', [{ code: 'X', workerId: 2, start: '2026-01-02', end: '2026-01-03' }]);
    expect(writes([], create({}, { occupancy: unitOf('SG-OPS', []) }), other)[2]).toEqual(['unit-SG-OPS-2026-01', 'any', ['SlotsBooked']]);
  });

  it('a worker stream that exists is written at the revision the state was folded to', () => {
    const { events } = withOne();
    expect(writes(events, create({ startDate: '2026-03-02', days: 6 }, { n: 1 }))[0]).toEqual(['worker-1001', 0, ['VacationCreated']]);
  });

  it('an edit: one write a stream, the month it leaves and books again at the revision read', () => {
    const { code, events } = withOne();
    const occupancy = unitOf('SG-OPS', [{ code, workerId: 1001, start: '2026-01-05', end: '2026-01-26' }]);
    const out = writes(events, edit(code, { days: 20 }, { occupancy, recordId: 9, n: 2 }), occupancy);
    expect(out.map(([stream, expected, types]) => [String(stream).split('-VAC')[0], expected, types])).toEqual([
      ['worker-1001', 0, ['VacationEditStarted', 'VacationDeleted', 'VacationCreated']],
      ['pila', 'no_stream', ['PilaCodeAssigned']],
      ['unit-SG-OPS-2026-01', 0, ['SlotsReleased', 'SlotsBooked']],
      ['unit-SG-OPS-2026-02', 'no_stream', ['SlotsBooked']],
    ]);
  });

  it('a deletion releases the months of the record as it stood, with no expectation; an approval touches only the worker', () => {
    const { code, events } = withOne();
    expect(writes(events, remove(code))).toEqual([
      ['worker-1001', 0, ['VacationDeleted']],
      ['unit-SG-OPS-2026-01', 'any', ['SlotsReleased']],
    ]);
    expect(writes(events, approve(code))).toEqual([['worker-1001', 0, ['VacationApproved']]]);
  });

  it('an interruption releases the whole period and books the days enjoyed again, in the same month stream', () => {
    const { code, events } = withOne();
    const approved = [...events, ...(decide(approve(code), at(events)) as { events: DomainEvent[] }).events];
    expect(writes(approved, interrupt(code, '2026-01-15', '2026-01-15'))).toEqual([
      ['worker-1001', 1, ['VacationInterrupted']],
      ['unit-SG-OPS-2026-01', 'any', ['SlotsReleased', 'SlotsBooked']],
    ]);
    expect(writes(approved, interrupt(code, '2026-01-05', '2026-01-05'))).toEqual([
      ['worker-1001', 1, ['VacationInterrupted']],
      ['unit-SG-OPS-2026-01', 'any', ['SlotsReleased']],
    ]);
  });
});

describe('what the occupancy read model announces to calculate (src/projections/occupancy/vouch.ts)', () => {
  /** Whether a decision writes to a month stream, and whether it carries an event the occupancy runner applies and announces. */
  function seen(events: DomainEvent[], command: VacationCommand, occupancy?: UnitOccupancy) {
    const state = at(events);
    const d = decide(command, state);
    if (!d.ok) throw new Error(JSON.stringify(d));
    return {
      writesMonths: streamsOf(d.events, state, occupancy).some((w) => isUnitStream(w.stream)),
      announced: d.events.some((e) => occupancyProjector.handles.has(e.type) && movesPlaces(e)),
    };
  }

  it('every decision that writes to a month stream carries an event the runner applies and announces', () => {
    const { code, events } = withOne();
    const occupancy = unitOf('SG-OPS', [{ code, workerId: 1001, start: '2026-01-05', end: '2026-01-26' }]);
    const approved = [...events, ...(decide(approve(code), at(events)) as { events: DomainEvent[] }).events];
    const cases = [
      seen([], create({}, { occupancy: unitOf('SG-OPS', []) }), unitOf('SG-OPS', [])),
      seen([], create({}, { file: workerFile({ params: params({ maxPeopleOnVacation: null }) }) })),
      seen(events, edit(code, { days: 20 }, { occupancy, recordId: 9, n: 2 }), occupancy),
      seen(events, remove(code)),
      seen(approved, interrupt(code, '2026-01-15', '2026-01-15')),
      seen(approved, interrupt(code, '2026-01-05', '2026-01-05')),
    ];
    for (const c of cases) expect(c).toEqual({ writesMonths: true, announced: true });
  });

  it('a vacation paid in money and an approval write no month and announce nothing', () => {
    const { code, events } = withOne();
    expect(seen(events, create({ startDate: '2026-03-02', days: 6, compensated: true }, { n: 1 }))).toEqual({
      writesMonths: false,
      announced: false,
    });
    expect(seen(events, approve(code))).toEqual({ writesMonths: false, announced: false });
  });
});
