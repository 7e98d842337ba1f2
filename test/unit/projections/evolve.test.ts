import { describe, expect, it } from 'vitest';
import { decode, type DecodedEvent } from '../../../src/events/codec.ts';
import { workerStream } from '../../../src/events/streams.ts';
import { allProjectors } from '../../../src/projections/index.ts';
import { eventsByUnit } from '../../../src/projections/runtime/units.ts';
import type { Projector, Row, Unit } from '../../../src/projections/types.ts';
import type { NewEvent } from '../../../src/store/types.ts';
import { approvedEvent, created, deletedEvent, imported, interruptedEvent, record } from '../../support/event-builders.ts';

/**
 * The read models' rules without a database: each projector's evolve over events as a worker's
 * stream holds them (revisions in order), and the rows it gives. The same code runs live and in
 * a rebuild (runtime/units.ts, runtime/bulk.ts); the integration tests hold both to these rows.
 */
function stream(workerId: number, events: NewEvent[], from = 0): DecodedEvent[] {
  return events.map((e, i) =>
    decode({
      id: e.id,
      stream: workerStream(workerId),
      revision: from + i,
      type: e.type,
      version: e.version ?? 1,
      data: e.data,
      metadata: e.metadata ?? {},
      position: { commit: BigInt(from + i + 1), prepare: BigInt(from + i + 1) },
      recordedAt: '2024-03-01T15:00:00.000Z',
      hash: '',
    })!,
  );
}

const projector = (name: string): Projector => allProjectors.find((p) => p.name === name)!;

/** Given units, when these events come (in one batch or several), then these rows. */
function rowsAfter(p: Projector, batches: DecodedEvent[][]): Row[] {
  const units = new Map<string, Unit | undefined>();
  for (const batch of batches) {
    for (const [key, own] of eventsByUnit(p, batch)) units.set(key, p.evolve(units.get(key), own));
  }
  return [...units.values()].flatMap((u) => (u === undefined ? [] : [...p.rowsOf(u)]));
}

const a = record({ codigoPila: 'EV-A', workerId: 11 });
const cut = { on: '2024-03-07', end: '2024-03-06', enjoyed: 3, calendarDays: 3, value: 300_000 };
const on = (businessDate: string) => ({ businessDate });

describe("the read models' folds", () => {
  it('give the same rows whether the events come in one batch or one at a time', () => {
    const events = stream(11, [
      created(a, on('2024-02-01')),
      approvedEvent(a, on('2024-02-02')),
      interruptedEvent(a, cut, on('2024-03-07')),
      imported(record({ codigoPila: 'EV-B', workerId: 11, compensated: true }), true),
    ]);
    for (const p of allProjectors) {
      expect(
        rowsAfter(
          p,
          events.map((e) => [e]),
        ),
        p.name,
      ).toEqual(rowsAfter(p, [events]));
    }
  });

  it('register: an approval and an interruption each close the version before on their business day and open the next', () => {
    const rows = rowsAfter(projector('register'), [
      stream(11, [created(a, on('2024-02-01')), approvedEvent(a, on('2024-02-02')), interruptedEvent(a, cut, on('2024-03-07'))]),
    ]);
    expect(rows.map((r) => [r.revision, r.recorded_on, r.superseded_on, r.approved, r.end_date])).toEqual([
      [0, '2024-02-01', '2024-02-02', false, '2024-03-15'],
      [1, '2024-02-02', '2024-03-07', true, '2024-03-15'],
      [2, '2024-03-07', null, true, '2024-03-06'],
    ]);
  });

  it('register: an event the versions have reached already changes nothing (the very unit comes back)', () => {
    const p = projector('register');
    const events = stream(11, [created(a), approvedEvent(a)]);
    const unit = p.evolve(undefined, events);
    expect(p.evolve(unit, events.slice(1))).toBe(unit);
  });

  it('vacations: an approval of a record not yet created changes nothing; a deletion keeps the row, marked', () => {
    const p = projector('vacations');
    expect(rowsAfter(p, [stream(11, [approvedEvent(a)])])).toEqual([]);
    const [row] = rowsAfter(p, [stream(11, [created(a), deletedEvent(a)])]);
    expect(row).toMatchObject({ codigo_pila: 'EV-A', status: 'deleted', approved: false });
  });

  it('occupancy and contract links: a deletion removes the unit; compensated days take no place', () => {
    const paid = record({ codigoPila: 'EV-C', workerId: 11, compensated: true });
    const events = stream(11, [created(a), created(paid), deletedEvent(a)]);
    expect(rowsAfter(projector('occupancy'), [events])).toEqual([]);
    expect(rowsAfter(projector('contract-links'), [events]).map((r) => r.codigo_pila)).toEqual(['EV-C']);
  });

  it('amortizations: an interruption replaces every part of the record', () => {
    const rows = rowsAfter(projector('amortizations'), [stream(11, [created(a), approvedEvent(a), interruptedEvent(a, cut)])]);
    expect(rows).toEqual([{ codigo_pila: 'EV-A', periodo: '2024-03', dias_habiles: 3, dias_calendario: 3, valor: 300_000 }]);
  });

  it('worker states: events folded already change nothing (the very unit comes back)', () => {
    const p = projector('worker-states');
    const events = stream(11, [created(a), approvedEvent(a)]);
    const unit = p.evolve(undefined, events);
    expect(p.evolve(unit, events)).toBe(unit);
    expect(p.rowsOf(unit!)).toEqual([
      { worker_id: 11, revision: 1, records: [expect.objectContaining({ codigoPila: 'EV-A', approved: true })] },
    ]);
  });
});
