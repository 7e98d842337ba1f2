import { describe, expect, it } from 'vitest';
import { decideApprove, decideCreate, decideDelete, decideEdit } from '../../../src/commands/decide.ts';
import type { DomainEvent } from '../../../src/events/types.ts';
import { isPilaCode } from '../../../src/domain/index.ts';
import { calendar, given, params, request, stateOf, unitOf, workerFile } from './builders.ts';

function createdEvents(over = {}) {
  const file = workerFile();
  const state = stateOf([]);
  const d = decideCreate({ request: request(over), file, state, calendar, occupancy: unitOf('SG-OPS', []) }, state, given(7));
  if (!d.ok) throw new Error(JSON.stringify(d));
  return d;
}

/** A worker stream holding one created vacation, as the create decision wrote it. */
function withOne(over = {}) {
  const d = createdEvents(over);
  const events = d.writes[0]!.events;
  return { code: d.value.record.codigoPila, events, state: stateOf(events) };
}

const approveOf = (code: string): DomainEvent => ({
  type: 'VacationApproved',
  data: { codigoPila: code, workerId: 1001, approvedByUserId: 1, approvedAt: '2026-11-21T00:00:00Z' },
});

describe('create', () => {
  it('given a valid request, then it writes the record to the worker stream, claims the code, and books the months', () => {
    const d = createdEvents();
    const r = d.value.record;
    expect(isPilaCode(r.codigoPila)).toBe(true);
    expect(r).toMatchObject({
      recordId: 7,
      workerId: 1001,
      startDate: '2026-01-05',
      endDate: '2026-01-26',
      businessDays: 15,
      calendarDays: 22,
      salary: 2_847_000,
      totalValue: 1_423_500,
      replaces: null,
    });
    expect(d.writes.map((w) => [w.stream, w.expectedRevision, w.events.map((e) => e.type)])).toEqual([
      ['worker-1001', 'no_stream', ['VacationCreated']],
      [`pila-${r.codigoPila}`, 'no_stream', ['PilaCodeAssigned']],
      ['unit-SG-OPS-2026-01', 'no_stream', ['SlotsBooked']],
    ]);
  });

  it('given a period across two months, then both month streams are booked at the revisions read', () => {
    const file = workerFile();
    const state = stateOf([]);
    const occ = unitOf('SG-OPS', [{ code: 'X', workerId: 2, start: '2026-01-02', end: '2026-01-03' }]);
    const d = decideCreate({ request: request({ startDate: '2026-01-20' }), file, state, calendar, occupancy: occ }, state, given());
    expect(d.ok && d.writes.filter((w) => w.stream.startsWith('unit-')).map((w) => [w.stream, w.expectedRevision])).toEqual([
      ['unit-SG-OPS-2026-01', 0],
      ['unit-SG-OPS-2026-02', 'no_stream'],
    ]);
  });

  it('given no limit of people at once, then the bookings do not guard the month streams', () => {
    const file = workerFile({ params: params({ maxPeopleOnVacation: null }) });
    const state = stateOf([]);
    const d = decideCreate({ request: request(), file, state, calendar }, state, given());
    expect(d.ok && d.writes.find((w) => w.stream.startsWith('unit-'))!.expectedRevision).toBe('any');
  });

  it('given a compensated vacation, then no place is booked', () => {
    const d = createdEvents({ compensated: true });
    expect(d.writes.map((w) => w.stream.split('-')[0])).toEqual(['worker', 'pila']);
  });

  it('given a broken rule, then nothing is written', () => {
    const state = stateOf([]);
    const d = decideCreate({ request: request({ days: 4 }), file: workerFile(), state, calendar }, state, given());
    expect(d).toEqual({ ok: false, kind: 'rules', violations: [{ rule: 'belowMinimum', requested: 4, minimum: 6 }] });
  });

  it('given an existing stream, then the append expects its revision', () => {
    const { state } = withOne();
    const d = decideCreate(
      {
        request: request({ startDate: '2026-03-02', days: 6 }),
        file: workerFile(),
        state,
        calendar,
      },
      { ...state, revision: 0 },
      given(8, 1),
    );
    expect(d.ok && d.writes[0]!.expectedRevision).toBe(0);
  });
});

describe('edit', () => {
  it('given an unknown or deleted code, then the record is not found', () => {
    const { state } = withOne();
    const input = { request: request(), file: workerFile(), state, calendar };
    expect(decideEdit('VAC_0_00000000_00000000', input, state, given(), 1)).toEqual({ ok: false, kind: 'record_not_found' });
  });

  it('given new data that breaks a rule, then it fails with the rules and before the approval check', () => {
    const { code, events } = withOne();
    const state = stateOf([...events, approveOf(code)]);
    const d = decideEdit(code, { request: request({ days: 3 }), file: workerFile(), state, calendar }, state, given(), 1);
    expect(d).toEqual({ ok: false, kind: 'rules', violations: [{ rule: 'belowMinimum', requested: 3, minimum: 6 }] });
  });

  it('given an approved record and valid new data, then it is refused as approved', () => {
    const { code, events } = withOne();
    const state = stateOf([...events, approveOf(code)]);
    const d = decideEdit(code, { request: request({ days: 10 }), file: workerFile(), state, calendar }, state, given(), 1);
    expect(d).toEqual({ ok: false, kind: 'approved' });
  });

  it('given valid new data overlapping the old period, then the old record does not clash, count or hold a place', () => {
    const { code, events } = withOne();
    const state = { ...stateOf(events), revision: 0 };
    const occ = unitOf('SG-OPS', [{ code, workerId: 1001, start: '2026-01-05', end: '2026-01-26' }]);
    const d = decideEdit(
      code,
      { request: request({ days: 20 }), file: workerFile(), state, calendar, occupancy: occ },
      state,
      given(9, 2),
      5,
    );
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    const [worker] = d.writes;
    expect(worker!.stream).toBe('worker-1001');
    expect(worker!.expectedRevision).toBe(0);
    // The start of the edit with the old code and both new ids, then the deletion, then the creation.
    expect(worker!.events.map((e) => e.type)).toEqual(['VacationEditStarted', 'VacationDeleted', 'VacationCreated']);
    expect(worker!.events[0]!.data).toEqual({
      codigoPila: code,
      workerId: 1001,
      newRecordId: 9,
      newCodigoPila: d.value.record.codigoPila,
      startedAt: given().nowIso,
    });
    expect(worker!.events[1]!.data).toMatchObject({
      codigoPila: code,
      reason: 'edit',
      replacedBy: d.value.record.codigoPila,
      deletedByUserId: 5,
    });
    expect(d.value.record.replaces).toBe(code);
    expect(d.value.record.codigoPila).not.toBe(code);
    const unitJan = d.writes.find((w) => w.stream === 'unit-SG-OPS-2026-01')!;
    expect(unitJan.events.map((e) => e.type)).toEqual(['SlotsReleased', 'SlotsBooked']);
    expect(unitJan.expectedRevision).toBe(0);
  });
});

describe('delete and approve', () => {
  it('given a live record, then delete writes a full snapshot and releases its places', () => {
    const { code, events } = withOne();
    const state = { ...stateOf(events), revision: 0 };
    const d = decideDelete(code, state, given(), 3);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.writes.map((w) => [w.stream, w.expectedRevision, w.events.map((e) => e.type)])).toEqual([
      ['worker-1001', 0, ['VacationDeleted']],
      ['unit-SG-OPS-2026-01', 'any', ['SlotsReleased']],
    ]);
    expect(d.writes[0]!.events[0]!.data).toMatchObject({
      reason: 'delete',
      deletedByUserId: 3,
      snapshot: { codigoPila: code, totalValue: 1_423_500, approved: false },
    });
    expect(d.value).toEqual({
      record: expect.objectContaining({ codigoPila: code }),
      at: (d.writes[0]!.events[0]!.data as { deletedAt: string }).deletedAt,
    });
  });

  it('given an approved record, then neither delete nor a second approval is allowed', () => {
    const { code, events } = withOne();
    const state = stateOf([...events, approveOf(code)]);
    expect(decideDelete(code, state, given(), 1)).toEqual({ ok: false, kind: 'approved' });
    expect(decideApprove(code, state, given(), 1)).toEqual({ ok: false, kind: 'approved' });
  });

  it('given a deleted record, then delete and approve do not find it', () => {
    const { code, events, state } = withOne();
    const del = decideDelete(code, state, given(), 1);
    const after = stateOf([...events, ...(del.ok ? del.writes[0]!.events : [])]);
    expect(decideDelete(code, after, given(), 1)).toEqual({ ok: false, kind: 'record_not_found' });
    expect(decideApprove(code, after, given(), 1)).toEqual({ ok: false, kind: 'record_not_found' });
  });

  it('given a live unapproved record, then approve writes the approval', () => {
    const { code, state } = withOne();
    const d = decideApprove(code, { ...state, revision: 0 }, given(), 2);
    expect(d.ok && d.value.at).toBe('2026-11-21T12:00:00.000Z');
    expect(d.ok && d.writes).toEqual([
      {
        stream: 'worker-1001',
        expectedRevision: 0,
        events: [
          {
            type: 'VacationApproved',
            data: { codigoPila: code, workerId: 1001, approvedByUserId: 2, approvedAt: '2026-11-21T12:00:00.000Z' },
          },
        ],
      },
    ]);
  });
});
