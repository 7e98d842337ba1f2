import { describe, expect, it } from 'vitest';
import type { RuleViolation } from '../../../src/commands/violations.ts';
import type { DomainEvent, VacationInterrupted, VacationRecord } from '../../../src/events/types.ts';
import { given } from '../../support/decider-spec.ts';
import { create, interrupt, stateOf, unitOf } from './builders.ts';

/** A worker stream holding one vacation from 2026-01-05 to 2026-01-26 (15 business days), approved unless said. */
function booked(over: Parameters<typeof create>[0] = {}, approved = true) {
  const created = given([])
    .when(create(over, { occupancy: unitOf('SG-OPS', []), recordId: 7 }))
    .then(() => {});
  const code = (created[0]!.data as VacationRecord).codigoPila;
  const events: DomainEvent[] = [created[0]!];
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

const interruptedIn = (events: DomainEvent[]) => events.find((e) => e.type === 'VacationInterrupted')!.data as VacationInterrupted;

describe('interrupt (CST art. 188)', () => {
  it('given an approved enjoyed vacation in course, when interrupted on a business day, then it keeps the days enjoyed and gives the rest back', () => {
    const { code, events } = booked();
    given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-15'))
      .then((decided) => {
        expect(decided.map((e) => e.type)).toEqual(['VacationInterrupted', 'SlotsReleased', 'SlotsBooked']);
        // Enjoyed: 5, 6, 7, 8, 9 and 13, 14 January (the 12th is a holiday); the 15th is the first day not enjoyed.
        expect(interruptedIn(decided)).toMatchObject({
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
        expect(decided[1]).toEqual({ type: 'SlotsReleased', data: { codigoPila: code, workerId: 1001 } });
        expect(decided[2]).toMatchObject({ data: { codigoPila: code, startDate: '2026-01-05', endDate: '2026-01-14' } });
      });
  });

  it('given the interruption folded into the worker state, then the record holds the days enjoyed and the days returned', () => {
    const { code, events } = booked();
    const decided = given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-15'))
      .then(() => {});
    expect(stateOf([...events, ...decided]).vacations.get(code)).toMatchObject({
      approved: true,
      businessDays: 7,
      endDate: '2026-01-14',
      interruptedOn: '2026-01-15',
      daysReturned: 8,
    });
  });

  it('given a vacation not approved, compensated, not begun, ended or already interrupted, then each reason is listed and nothing is decided', () => {
    const pending = booked({}, false);
    given(pending.events)
      .when(interrupt(pending.code, '2026-01-15', '2026-01-15'))
      .thenFails({ kind: 'rules', violations: [msg.notApprovedToInterrupt(pending.code)] });
    const money = booked({ compensated: true });
    given(money.events)
      .when(interrupt(money.code, '2026-01-15', '2026-01-15'))
      .thenFails({ violations: [msg.compensatedToInterrupt(money.code)] });
    const { code, events } = booked();
    given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-04'))
      .thenFails({ violations: [msg.notBegun(code, '2026-01-05', '2026-01-04')] });
    given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-27'))
      .thenFails({ violations: [msg.alreadyEnded(code, '2026-01-26', '2026-01-27')] });
    const decided = given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-15'))
      .then(() => {});
    given([...events, ...decided])
      .when(interrupt(code, '2026-01-16', '2026-01-16'))
      .thenFails({
        kind: 'rules',
        violations: [msg.alreadyInterrupted(code, '2026-01-15'), msg.interruptionOutside('2026-01-16', '2026-01-05', '2026-01-14')],
      });
  });

  it('given a vacation begun today, when interrupted on its first day, then it keeps 0 days, worth 0, and frees every place', () => {
    const { code, events } = booked();
    const decided = given(events)
      .when(interrupt(code, '2026-01-05', '2026-01-05'))
      .then((decided) => {
        // Released, and nothing booked again.
        expect(decided.map((e) => e.type)).toEqual(['VacationInterrupted', 'SlotsReleased']);
        // The empty period: it ends the day before it starts.
        expect(interruptedIn(decided)).toMatchObject({
          startDate: '2026-01-05',
          endDate: '2026-01-04',
          businessDays: 0,
          calendarDays: 0,
          totalValue: 0,
          amortizations: [],
          interruptedOn: '2026-01-05',
          daysReturned: 15,
        });
      });
    expect(stateOf([...events, ...decided]).vacations.get(code)).toMatchObject({
      businessDays: 0,
      daysReturned: 15,
      interruptedOn: '2026-01-05',
    });
  });

  it('given a vacation interrupted on its first day, then its 15 days can be booked again over the same dates', () => {
    const { code, events } = booked();
    const decided = given(events)
      .when(interrupt(code, '2026-01-05', '2026-01-05'))
      .then(() => {});
    given([...events, ...decided])
      .when(create({ continues: code }, { occupancy: unitOf('SG-OPS', []), recordId: 9, n: 1 }))
      .then(([created]) => expect(created!.data).toMatchObject({ startDate: '2026-01-05', businessDays: 15, continues: code }));
  });

  it('given a date before the start, after the end, or not a business day, then the date is refused', () => {
    const { code, events } = booked();
    given(events)
      .when(interrupt(code, '2026-01-02', '2026-01-15'))
      .thenFails({ violations: [msg.interruptionOutside('2026-01-02', '2026-01-05', '2026-01-26')] });
    given(events)
      .when(interrupt(code, '2026-01-27', '2026-01-15'))
      .thenFails({ violations: [msg.interruptionOutside('2026-01-27', '2026-01-05', '2026-01-26')] });
    given(events)
      .when(interrupt(code, '2026-01-12', '2026-01-15'))
      .thenFails({ violations: [msg.interruptionNotBusinessDay('2026-01-12')] });
    given(events)
      .when(interrupt('VAC_0_00000000_00000000', '2026-01-15', '2026-01-15'))
      .thenFails('record_not_found');
  });
});

describe('booking the days an interruption gave back', () => {
  function interrupted() {
    const { code, events } = booked();
    const decided = given(events)
      .when(interrupt(code, '2026-01-15', '2026-01-15', 'necesidad del servicio'))
      .then(() => {});
    return { code, events: [...events, ...decided] };
  }
  const createOn = (over: Parameters<typeof create>[0], n = 1) => create(over, { occupancy: unitOf('SG-OPS', []), recordId: 8 + n, n });

  it('given days left of an interrupted vacation, then a new record may book them and names the one it continues', () => {
    const { code, events } = interrupted();
    const decided = given(events)
      .when(createOn({ startDate: '2026-03-02', days: 8, continues: code }))
      .then(([created]) => expect(created!.data).toMatchObject({ continues: code, businessDays: 8, replaces: null }));
    // Once they are booked, none are left.
    given([...events, ...decided])
      .when(createOn({ startDate: '2026-04-06', days: 6, continues: code }, 2))
      .thenFails({ kind: 'rules', violations: [msg.continuesOverReturned(6, 0, code)] });
  });

  it('given more days than were given back, a record never interrupted or an unknown code, then the rules refuse it', () => {
    const { code, events } = interrupted();
    given(events)
      .when(createOn({ startDate: '2026-03-02', days: 9, continues: code }))
      .thenFails({ violations: [msg.continuesOverReturned(9, 8, code)] });
    const plain = booked({ startDate: '2026-05-04', days: 6 });
    given(plain.events)
      .when(createOn({ startDate: '2026-03-02', days: 6, continues: plain.code }))
      .thenFails({ violations: [msg.continuesNotInterrupted(plain.code)] });
    given(events)
      .when(createOn({ startDate: '2026-03-02', days: 6, continues: 'VAC_1_00000000_00000000' }))
      .thenFails({ violations: [msg.continuesUnknown('VAC_1_00000000_00000000')] });
  });
});
