import { describe, expect, it } from 'vitest';
import { decideCreate, decideInterrupt, type InterruptionRequest } from '../../../src/commands/decide.ts';
import type { RuleViolation } from '../../../src/commands/violations.ts';
import type { DomainEvent } from '../../../src/events/types.ts';
import { calendar, given, request, stateOf, unitOf, workerFile } from './builders.ts';

/** A worker stream holding one vacation from 2026-01-05 to 2026-01-26 (15 business days), approved unless said. */
function booked(over: Parameters<typeof request>[0] = {}, approved = true) {
  const state = stateOf([]);
  const d = decideCreate({ request: request(over), file: workerFile(), state, calendar, occupancy: unitOf('SG-OPS', []) }, state, given(7));
  if (!d.ok) throw new Error(JSON.stringify(d));
  const code = d.value.record.codigoPila;
  const events: DomainEvent[] = [...d.writes[0]!.events];
  if (approved)
    events.push({
      type: 'VacationApproved',
      data: { codigoPila: code, workerId: 1001, approvedByUserId: 1, approvedAt: '2026-01-02T00:00:00Z' },
    });
  return { code, events };
}

/** The violations the decider names, built as it builds them. */
const msg = {
  notApprovedToInterrupt: (codigoPila: string): RuleViolation => ({ rule: 'notApprovedToInterrupt', codigoPila }),
  compensatedToInterrupt: (codigoPila: string): RuleViolation => ({ rule: 'compensatedToInterrupt', codigoPila }),
  alreadyInterrupted: (codigoPila: string, on: string): RuleViolation => ({ rule: 'alreadyInterrupted', codigoPila, on }),
  notBegun: (codigoPila: string, startDate: string, today: string): RuleViolation => ({ rule: 'notBegun', codigoPila, startDate, today }),
  alreadyEnded: (codigoPila: string, endDate: string, today: string): RuleViolation => ({
    rule: 'alreadyEnded',
    codigoPila,
    endDate,
    today,
  }),
  interruptionOutside: (date: string, startDate: string, endDate: string): RuleViolation => ({
    rule: 'interruptionOutside',
    date,
    startDate,
    endDate,
  }),
  interruptionNotBusinessDay: (date: string): RuleViolation => ({ rule: 'interruptionNotBusinessDay', date }),
  continuesUnknown: (codigoPila: string): RuleViolation => ({ rule: 'continuesUnknown', codigoPila }),
  continuesNotInterrupted: (codigoPila: string): RuleViolation => ({ rule: 'continuesNotInterrupted', codigoPila }),
  continuesOverReturned: (requested: number, left: number, codigoPila: string): RuleViolation => ({
    rule: 'continuesOverReturned',
    requested,
    left,
    codigoPila,
  }),
};

const on = (date: string, reason: InterruptionRequest['reason'] = 'incapacidad'): InterruptionRequest => ({ date, reason });
const ctx = (today: string) => ({ calendar, today });
const withRevision = (events: DomainEvent[]) => ({ ...stateOf(events), revision: events.length - 1 });

describe('interrupt (CST art. 188)', () => {
  it('given an approved enjoyed vacation in course, when interrupted on a business day, then it keeps the days enjoyed and gives the rest back', () => {
    const { code, events } = booked();
    const d = decideInterrupt(code, on('2026-01-15'), withRevision(events), ctx('2026-01-15'), given(), 3);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    // Enjoyed: 5, 6, 7, 8, 9 and 13, 14 January (the 12th is a holiday); the 15th is the first day not enjoyed.
    expect(d.value.record).toMatchObject({
      codigoPila: code,
      startDate: '2026-01-05',
      endDate: '2026-01-14',
      businessDays: 7,
      calendarDays: 10,
      totalValue: 664_300,
      amortizations: [{ periodo: '2026-01', diasHabiles: 7, diasCalendario: 10, valor: 664_300 }],
      interruptedOn: '2026-01-15',
      reason: 'incapacidad',
      daysReturned: 8,
      before: { endDate: '2026-01-26', businessDays: 15, calendarDays: 22, totalValue: 1_423_500 },
      interruptedByUserId: 3,
    });
    expect(d.writes.map((w) => [w.stream, w.expectedRevision, w.events.map((e) => e.type)])).toEqual([
      ['worker-1001', 1, ['VacationInterrupted']],
      ['unit-SG-OPS-2026-01', 'any', ['SlotsReleased', 'SlotsBooked']],
    ]);
    expect(d.writes[1]!.events[1]).toMatchObject({ data: { codigoPila: code, startDate: '2026-01-05', endDate: '2026-01-14' } });
  });

  it('given the interruption folded into the worker state, then the record holds the days enjoyed and the days returned', () => {
    const { code, events } = booked();
    const d = decideInterrupt(code, on('2026-01-15'), withRevision(events), ctx('2026-01-15'), given(), 3);
    if (!d.ok) throw new Error(JSON.stringify(d));
    const state = stateOf([...events, ...d.writes[0]!.events]);
    expect(state.vacations.get(code)).toMatchObject({
      approved: true,
      businessDays: 7,
      endDate: '2026-01-14',
      interruptedOn: '2026-01-15',
      daysReturned: 8,
    });
  });

  it('given a vacation not approved, compensated, not begun, ended or already interrupted, then each reason is listed and nothing is written', () => {
    const pending = booked({}, false);
    expect(decideInterrupt(pending.code, on('2026-01-15'), stateOf(pending.events), ctx('2026-01-15'), given(), 3)).toEqual({
      ok: false,
      kind: 'rules',
      violations: [msg.notApprovedToInterrupt(pending.code)],
    });
    const money = booked({ compensated: true });
    expect(decideInterrupt(money.code, on('2026-01-15'), stateOf(money.events), ctx('2026-01-15'), given(), 3)).toMatchObject({
      violations: [msg.compensatedToInterrupt(money.code)],
    });
    const { code, events } = booked();
    expect(decideInterrupt(code, on('2026-01-15'), stateOf(events), ctx('2026-01-04'), given(), 3)).toMatchObject({
      violations: [msg.notBegun(code, '2026-01-05', '2026-01-04')],
    });
    expect(decideInterrupt(code, on('2026-01-15'), stateOf(events), ctx('2026-01-27'), given(), 3)).toMatchObject({
      violations: [msg.alreadyEnded(code, '2026-01-26', '2026-01-27')],
    });
    const d = decideInterrupt(code, on('2026-01-15'), stateOf(events), ctx('2026-01-15'), given(), 3);
    if (!d.ok) throw new Error(JSON.stringify(d));
    const again = decideInterrupt(code, on('2026-01-16'), stateOf([...events, ...d.writes[0]!.events]), ctx('2026-01-16'), given(), 3);
    expect(again).toMatchObject({
      ok: false,
      kind: 'rules',
      violations: [msg.alreadyInterrupted(code, '2026-01-15'), msg.interruptionOutside('2026-01-16', '2026-01-05', '2026-01-14')],
    });
  });

  it('given a vacation begun today, when interrupted on its first day, then it keeps 0 days, worth 0, and frees every place', () => {
    const { code, events } = booked();
    const d = decideInterrupt(code, on('2026-01-05'), withRevision(events), ctx('2026-01-05'), given(), 3);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    // The empty period: it ends the day before it starts.
    expect(d.value.record).toMatchObject({
      startDate: '2026-01-05',
      endDate: '2026-01-04',
      businessDays: 0,
      calendarDays: 0,
      totalValue: 0,
      amortizations: [],
      interruptedOn: '2026-01-05',
      daysReturned: 15,
    });
    // Released, and nothing booked again.
    expect(d.writes.map((w) => [w.stream, w.events.map((e) => e.type)])).toEqual([
      ['worker-1001', ['VacationInterrupted']],
      ['unit-SG-OPS-2026-01', ['SlotsReleased']],
    ]);
    const state = stateOf([...events, ...d.writes[0]!.events]);
    expect(state.vacations.get(code)).toMatchObject({ businessDays: 0, daysReturned: 15, interruptedOn: '2026-01-05' });
  });

  it('given a vacation interrupted on its first day, then its 15 days can be booked again over the same dates', () => {
    const { code, events } = booked();
    const d = decideInterrupt(code, on('2026-01-05'), withRevision(events), ctx('2026-01-05'), given(), 3);
    if (!d.ok) throw new Error(JSON.stringify(d));
    const state = withRevision([...events, ...d.writes[0]!.events]);
    const again = decideCreate(
      { request: request({ continues: code }), file: workerFile(), state, calendar, occupancy: unitOf('SG-OPS', []) },
      state,
      given(9, 1),
    );
    expect(again.ok && again.value.record).toMatchObject({ startDate: '2026-01-05', businessDays: 15, continues: code });
  });

  it('given a date before the start, after the end, or not a business day, then the date is refused', () => {
    const { code, events } = booked();
    const state = stateOf(events);
    expect(decideInterrupt(code, on('2026-01-02'), state, ctx('2026-01-15'), given(), 3)).toMatchObject({
      violations: [msg.interruptionOutside('2026-01-02', '2026-01-05', '2026-01-26')],
    });
    expect(decideInterrupt(code, on('2026-01-27'), state, ctx('2026-01-15'), given(), 3)).toMatchObject({
      violations: [msg.interruptionOutside('2026-01-27', '2026-01-05', '2026-01-26')],
    });
    expect(decideInterrupt(code, on('2026-01-12'), state, ctx('2026-01-15'), given(), 3)).toMatchObject({
      violations: [msg.interruptionNotBusinessDay('2026-01-12')],
    });
    expect(decideInterrupt('VAC_0_00000000_00000000', on('2026-01-15'), state, ctx('2026-01-15'), given(), 3)).toEqual({
      ok: false,
      kind: 'record_not_found',
    });
  });
});

describe('booking the days an interruption gave back', () => {
  function interrupted() {
    const { code, events } = booked();
    const d = decideInterrupt(code, on('2026-01-15', 'necesidad del servicio'), withRevision(events), ctx('2026-01-15'), given(), 3);
    if (!d.ok) throw new Error(JSON.stringify(d));
    return { code, events: [...events, ...d.writes[0]!.events] };
  }
  const create = (events: DomainEvent[], over: Parameters<typeof request>[0], n = 1) => {
    const state = withRevision(events);
    return decideCreate(
      { request: request(over), file: workerFile(), state, calendar, occupancy: unitOf('SG-OPS', []) },
      state,
      given(8 + n, n),
    );
  };

  it('given days left of an interrupted vacation, then a new record may book them and names the one it continues', () => {
    const { code, events } = interrupted();
    const d = create(events, { startDate: '2026-03-02', days: 8, continues: code });
    expect(d.ok && d.value.record).toMatchObject({ continues: code, businessDays: 8, replaces: null });
    if (!d.ok) return;
    // Once they are booked, none are left.
    const more = create([...events, ...d.writes[0]!.events], { startDate: '2026-04-06', days: 6, continues: code }, 2);
    expect(more).toEqual({ ok: false, kind: 'rules', violations: [msg.continuesOverReturned(6, 0, code)] });
  });

  it('given more days than were given back, a record never interrupted or an unknown code, then the rules refuse it', () => {
    const { code, events } = interrupted();
    expect(create(events, { startDate: '2026-03-02', days: 9, continues: code })).toMatchObject({
      violations: [msg.continuesOverReturned(9, 8, code)],
    });
    const plain = booked({ startDate: '2026-05-04', days: 6 });
    expect(create(plain.events, { startDate: '2026-03-02', days: 6, continues: plain.code })).toMatchObject({
      violations: [msg.continuesNotInterrupted(plain.code)],
    });
    expect(create(events, { startDate: '2026-03-02', days: 6, continues: 'VAC_1_00000000_00000000' })).toMatchObject({
      violations: [msg.continuesUnknown('VAC_1_00000000_00000000')],
    });
  });
});
