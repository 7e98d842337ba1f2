import { describe, expect, it } from 'vitest';
import { isPilaCode } from '../../../src/domain/index.ts';
import type { DomainEvent, VacationRecord } from '../../../src/events/types.ts';
import { given } from '../../support/decider-spec.ts';
import { approve, contract, create, edit, fortnights, interrupt, params, remove, unitOf, workerFile } from './builders.ts';

const noOne = () => unitOf('SG-OPS', []);

/** The events of one created vacation, from 2026-01-05 to 2026-01-26, and its code. */
function withOne(over = {}) {
  const events = given([])
    .when(create(over, { occupancy: noOne(), recordId: 7 }))
    .then(() => {});
  return { code: (events[0]!.data as VacationRecord).codigoPila, events };
}

const approval = (code: string): DomainEvent => ({
  type: 'VacationApproved',
  data: { codigoPila: code, workerId: 1001, approvedByUserId: 1, approvedAt: '2026-11-21T00:00:00Z' },
});

describe('create', () => {
  it('given no vacation, when a valid one is asked for, then it is created, its code assigned and its places booked', () => {
    given([])
      .when(create({}, { occupancy: noOne(), recordId: 7 }))
      .then(([created, assigned, booked, ...rest]) => {
        const r = created!.data as VacationRecord;
        expect(created!.type).toBe('VacationCreated');
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
          createdAt: '2026-11-21T12:00:00.000Z',
        });
        expect(assigned).toEqual({ type: 'PilaCodeAssigned', data: { codigoPila: r.codigoPila, workerId: 1001 } });
        expect(booked).toEqual({
          type: 'SlotsBooked',
          data: { codigoPila: r.codigoPila, workerId: 1001, subgerenciaId: 'SG-OPS', startDate: '2026-01-05', endDate: '2026-01-26' },
        });
        expect(rest).toEqual([]);
      });
  });

  it('given no limit of people at once, when nothing of the subgerencia was read, then the places are booked all the same', () => {
    const file = workerFile({ params: params({ maxPeopleOnVacation: null }) });
    given([])
      .when(create({}, { file }))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['VacationCreated', 'PilaCodeAssigned', 'SlotsBooked']));
  });

  it('given a vacation paid in money, then no place is booked', () => {
    given([])
      .when(create({ compensated: true }))
      .then((events) => expect(events.map((e) => e.type)).toEqual(['VacationCreated', 'PilaCodeAssigned']));
  });

  it('given a subgerencia full on those dates, then it is refused with the day it is full', () => {
    const full = unitOf('SG-OPS', [
      { code: 'X', workerId: 2, start: '2026-01-02', end: '2026-01-09' },
      { code: 'Y', workerId: 3, start: '2026-01-08', end: '2026-01-20' },
    ]);
    given([])
      .when(create({}, { occupancy: full }))
      .thenFails({ kind: 'rules', violations: [{ rule: 'unitFull', maximum: 2, subgerenciaId: 'SG-OPS', day: '2026-01-08' }] });
  });

  it('given a broken rule, then it is refused with the rule and gives no event', () => {
    given([])
      .when(create({ days: 4 }))
      .thenFails({ kind: 'rules', violations: [{ rule: 'belowMinimum', requested: 4, minimum: 6 }] });
  });

  it('given a vacation already recorded, when another overlaps it, then it is refused as overlapping', () => {
    const { code, events } = withOne();
    given(events)
      .when(create({ startDate: '2026-01-19', days: 6 }, { n: 1 }))
      .thenFails({ kind: 'rules', violations: [{ rule: 'overlap', codigoPila: code, startDate: '2026-01-05', endDate: '2026-01-26' }] });
  });
});

describe('edit', () => {
  it('given an unknown or deleted code, then the record is not found', () => {
    const { code, events } = withOne();
    given(events).when(edit('VAC_0_00000000_00000000')).thenFails('record_not_found');
    const deleted = given(events)
      .when(remove(code))
      .then(() => {});
    given([...events, ...deleted])
      .when(edit(code))
      .thenFails('record_not_found');
  });

  it('given new data that breaks a rule, then it fails with the rules and before the approval check', () => {
    const { code, events } = withOne();
    given([...events, approval(code)])
      .when(edit(code, { days: 3 }))
      .thenFails({ kind: 'rules', violations: [{ rule: 'belowMinimum', requested: 3, minimum: 6 }] });
  });

  it('given an approved record and valid new data, then it is refused as approved', () => {
    const { code, events } = withOne();
    given([...events, approval(code)])
      .when(edit(code, { days: 10 }))
      .thenFails({ kind: 'approved' });
  });

  it('given valid new data overlapping the old period, then the old record does not clash, count or hold a place', () => {
    const { code, events } = withOne();
    const occupancy = unitOf('SG-OPS', [{ code, workerId: 1001, start: '2026-01-05', end: '2026-01-26' }]);
    given(events)
      .when(edit(code, { days: 20 }, { occupancy, recordId: 9, n: 2, userId: 5 }))
      .then((decided) => {
        // The start of the edit with the old code and both new ids, the deletion, the creation, then the places.
        expect(decided.map((e) => e.type)).toEqual([
          'VacationEditStarted',
          'VacationDeleted',
          'VacationCreated',
          'PilaCodeAssigned',
          'SlotsReleased',
          'SlotsBooked',
        ]);
        const record = decided[2]!.data as VacationRecord;
        expect(decided[0]!.data).toEqual({
          codigoPila: code,
          workerId: 1001,
          newRecordId: 9,
          newCodigoPila: record.codigoPila,
          startedAt: '2026-11-21T12:00:00.000Z',
        });
        expect(decided[1]!.data).toMatchObject({ codigoPila: code, reason: 'edit', replacedBy: record.codigoPila, deletedByUserId: 5 });
        expect(record).toMatchObject({ replaces: code, businessDays: 20 });
        expect(record.codigoPila).not.toBe(code);
        expect(decided[4]).toEqual({ type: 'SlotsReleased', data: { codigoPila: code, workerId: 1001 } });
        expect(decided[5]!.data).toMatchObject({ codigoPila: record.codigoPila, startDate: '2026-01-05' });
      });
  });
});

describe('delete and approve', () => {
  it('given a live record, then delete records a full snapshot and releases its places', () => {
    const { code, events } = withOne();
    given(events)
      .when(remove(code, 3))
      .then(([deleted, released, ...rest]) => {
        expect(deleted).toMatchObject({
          type: 'VacationDeleted',
          data: {
            reason: 'delete',
            replacedBy: null,
            deletedByUserId: 3,
            deletedAt: '2026-11-21T12:00:00.000Z',
            snapshot: { codigoPila: code, totalValue: 1_423_500, approved: false },
          },
        });
        expect(released).toEqual({ type: 'SlotsReleased', data: { codigoPila: code, workerId: 1001 } });
        expect(rest).toEqual([]);
      });
  });

  it('given a record paid in money, then delete releases no place', () => {
    const { code, events } = withOne({ compensated: true });
    given(events)
      .when(remove(code))
      .then((decided) => expect(decided.map((e) => e.type)).toEqual(['VacationDeleted']));
  });

  it('given an approved record, then neither delete nor a second approval is allowed', () => {
    const { code, events } = withOne();
    given([...events, approval(code)])
      .when(remove(code))
      .thenFails('approved');
    given([...events, approval(code)])
      .when(approve(code))
      .thenFails('approved');
  });

  it('given a deleted record, then delete and approve do not find it', () => {
    const { code, events } = withOne();
    const after = [
      ...events,
      ...given(events)
        .when(remove(code))
        .then(() => {}),
    ];
    given(after).when(remove(code)).thenFails('record_not_found');
    given(after).when(approve(code)).thenFails('record_not_found');
  });

  it('given a live unapproved record, then approve records the approval', () => {
    const { code, events } = withOne();
    given(events)
      .when(approve(code, 2))
      .then([
        {
          type: 'VacationApproved',
          data: { codigoPila: code, workerId: 1001, approvedByUserId: 2, approvedAt: '2026-11-21T12:00:00.000Z' },
        },
      ]);
  });
});

describe('the actor scope (an area head acts only in their subgerencias)', () => {
  /** The worker's file after a move: a settled SG-OPS contract (2021-2023), then the SG-TEC one the record falls under. */
  const moved = workerFile({
    contracts: [
      contract({ id: 10000, subgerenciaId: 'SG-OPS', startDate: '2021-01-01', endDate: '2023-12-31', settled: true }),
      contract({ subgerenciaId: 'SG-TEC' }),
    ],
  });
  /** The events of one vacation booked under the SG-TEC contract, and its code. */
  function inTec() {
    const events = given([])
      .when(create({}, { file: moved, occupancy: unitOf('SG-TEC', []), recordId: 7 }))
      .then(() => {});
    return { code: (events[0]!.data as VacationRecord).codigoPila, events };
  }

  it('given a record of SG-TEC, when an SG-OPS head approves, deletes or interrupts it, then each is refused and gives no event', () => {
    const { code, events } = inTec();
    given(events)
      .when(approve(code, 2, ['SG-OPS']))
      .thenFails('out_of_scope');
    given(events)
      .when(remove(code, 2, ['SG-OPS']))
      .thenFails('out_of_scope');
    given([...events, approval(code)])
      .when(interrupt(code, '2026-01-15', '2026-01-15', 'incapacidad', 2, ['SG-OPS']))
      .thenFails('out_of_scope');
  });

  it('given a record of SG-TEC, when the SG-TEC head approves it, then it is approved', () => {
    const { code, events } = inTec();
    given(events)
      .when(approve(code, 2, ['SG-ADM', 'SG-TEC']))
      .then((decided) => expect(decided.map((e) => e.type)).toEqual(['VacationApproved']));
  });

  it('given an approved record out of scope, then the refusal is the scope, not the approval', () => {
    const { code, events } = inTec();
    given([...events, approval(code)])
      .when(approve(code, 2, ['SG-OPS']))
      .thenFails('out_of_scope');
  });

  it('given a head with no subgerencia, then nothing is in reach; an unknown code is still not found', () => {
    const { code, events } = inTec();
    given(events)
      .when(approve(code, 2, []))
      .thenFails('out_of_scope');
    given(events)
      .when(approve('VAC_0_00000000_00000000', 2, ['SG-OPS']))
      .thenFails('record_not_found');
  });

  it('given a record imported with no subgerencia, then only an unscoped actor reaches it', () => {
    const { code, events } = inTec();
    const imported: DomainEvent = {
      type: 'VacationImported',
      data: { ...(events[0]!.data as VacationRecord), subgerenciaId: null, approved: false },
    };
    given([imported])
      .when(approve(code, 2, ['SG-TEC']))
      .thenFails('out_of_scope');
    given([imported])
      .when(approve(code, 2))
      .then(() => {});
  });

  it('given a worker whose governing contract is SG-TEC, when an SG-OPS head books or edits, then it is refused: the past contract gives no reach', () => {
    given([])
      .when(create({}, { file: moved, occupancy: unitOf('SG-TEC', []), scope: ['SG-OPS'] }))
      .thenFails('out_of_scope');
    const { code, events } = inTec();
    given(events)
      .when(edit(code, { days: 10 }, { file: moved, scope: ['SG-OPS'] }))
      .thenFails('out_of_scope');
    given([])
      .when(create({}, { file: moved, occupancy: unitOf('SG-TEC', []), scope: ['SG-TEC'] }))
      .then(() => {});
  });

  it('given a record of SG-OPS, when edited to a start under the SG-TEC contract by an SG-OPS head, then it is refused', () => {
    const both = workerFile({
      contracts: [
        contract({ id: 10000, subgerenciaId: 'SG-OPS', startDate: '2024-02-01', endDate: '2026-06-30' }),
        contract({ subgerenciaId: 'SG-TEC', startDate: '2026-07-01', endDate: '2027-12-31' }),
      ],
      sheets: [...fortnights('2024-02-01', '2026-06-30', 2_847_000, 10000), ...fortnights('2026-07-01', '2026-10-31')],
    });
    const events = given([])
      .when(create({}, { file: both, occupancy: unitOf('SG-OPS', []), recordId: 7 }))
      .then(() => {});
    const code = (events[0]!.data as VacationRecord).codigoPila;
    expect((events[0]!.data as VacationRecord).subgerenciaId).toBe('SG-OPS');
    given(events)
      .when(edit(code, { startDate: '2026-08-03', days: 10 }, { file: both, scope: ['SG-OPS'] }))
      .thenFails('out_of_scope');
    given(events)
      .when(edit(code, { startDate: '2026-02-02', days: 10 }, { file: both, scope: ['SG-OPS'], recordId: 9 }))
      .then(() => {});
  });
});
