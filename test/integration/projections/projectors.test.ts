import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ProjectionService,
  amortizationsOfCode,
  auditOfCode,
  auditOfWorker,
  contractLinksOfWorker,
  dailyCounts,
  spansIn,
  silentLogger,
  vacationByCode,
  vacationsOfWorker,
} from '../../../src/projections/index.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { AppendResult } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import {
  approvedEvent,
  consultedEvent,
  contractCheckedEvent,
  created,
  deletedEvent,
  editEvents,
  imported,
  record,
  toAudit,
  toWorker,
} from '../../support/event-builders.ts';

describe('read models', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let service: ProjectionService;

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    // Batches of two: changes to one record land in different batches as well as in the same one.
    service = new ProjectionService(t.db, store, { logger: silentLogger, batchSize: 2, idleMs: 10 });
    await service.start();
  });
  afterAll(async () => {
    await service?.stop();
    await t?.drop();
  });

  const settle = async (r: AppendResult) => expect(await service.waitFor(r.position, 10_000)).toBe(true);
  /** People away each day from `from` to `to`, as the panel counts them from the read model's spans. */
  const occupancyCounts = async (sg: string, from: string, to: string) => {
    const window: string[] = [];
    for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d.setUTCDate(d.getUTCDate() + 1))
      window.push(d.toISOString().slice(0, 10));
    const counts = dailyCounts(window, await spansIn(t.db, sg, from, to));
    return window.map((day) => ({ day, count: counts.get(day)!.people }));
  };
  const days = async (sg: string, from: string, to: string) =>
    (await occupancyCounts(sg, from, to)).filter((d) => d.count > 0).map((d) => `${d.day}:${d.count}`);

  it('projects a creation and its approval into every model', async () => {
    const a = record({
      codigoPila: 'P0101001',
      workerId: 101,
      startDate: '2024-03-04',
      endDate: '2024-03-06',
      calendarDays: 3,
      businessDays: 3,
    });
    await toWorker(store, 101, [created(a)]);
    await settle(await toWorker(store, 101, [approvedEvent(a)]));

    const v = await vacationByCode(t.db, a.codigoPila);
    expect(v).toMatchObject({
      recordId: a.recordId,
      workerId: 101,
      documentNumber: 'D101',
      contractId: 1010,
      startDate: '2024-03-04',
      endDate: '2024-03-06',
      businessDays: 3,
      salary: 3_000_000,
      approved: true,
      approvedBy: 9,
      approvedAt: '2024-03-02T10:00:00.000Z',
      status: 'live',
      deletedAt: null,
      createdAt: '2024-03-01T15:00:00.000Z',
      amortizations: [{ periodo: '2024-03', diasHabiles: 10, diasCalendario: 12, valor: 1_000_000 }],
    });
    expect(await contractLinksOfWorker(t.db, 101)).toEqual([
      { codigoPila: a.codigoPila, workerId: 101, contractId: 1010, companyContractId: 3 },
    ]);
    const counts = await occupancyCounts('SG1', '2024-03-03', '2024-03-07');
    expect(counts).toEqual([
      { day: '2024-03-03', count: 0 },
      { day: '2024-03-04', count: 1 },
      { day: '2024-03-05', count: 1 },
      { day: '2024-03-06', count: 1 },
      { day: '2024-03-07', count: 0 },
    ]);
    const audit = await auditOfCode(t.db, a.codigoPila);
    expect(audit.map((e) => e.action)).toEqual(['CREACION', 'APROBACION']);
    expect(audit[0]).toMatchObject({ workerId: 101, userId: 7, userEmail: 'analista@example.com', apiKeyName: 'nomina' });
    expect(audit[0]!.details).toMatchObject({ startDate: '2024-03-04', businessDays: 3, compensated: false, periods: 1 });
    expect(audit[0]!.details).not.toHaveProperty('amortizations');
  });

  it('a deletion frees occupancy and removes the contract link but keeps the record and its amortizations', async () => {
    const b = record({ codigoPila: 'P0102001', workerId: 102, subgerenciaId: 'SG2', startDate: '2024-05-06', endDate: '2024-05-07' });
    await settle(await toWorker(store, 102, [created(b)]));
    expect(await days('SG2', '2024-05-01', '2024-05-31')).toEqual(['2024-05-06:1', '2024-05-07:1']);
    await settle(await toWorker(store, 102, [deletedEvent(b, {}, { userEmail: 'jefe@example.com' })]));

    expect(await vacationByCode(t.db, b.codigoPila)).toMatchObject({
      status: 'deleted',
      deletedReason: 'delete',
      deletedBy: 8,
      deletedAt: '2024-03-03T10:00:00.000Z',
      replacedBy: null,
    });
    expect(await vacationsOfWorker(t.db, 102)).toEqual([]);
    expect((await vacationsOfWorker(t.db, 102, { includeDeleted: true })).map((v) => v.codigoPila)).toEqual([b.codigoPila]);
    expect(await contractLinksOfWorker(t.db, 102)).toEqual([]);
    expect(await days('SG2', '2024-05-01', '2024-05-31')).toEqual([]);
    expect(await amortizationsOfCode(t.db, b.codigoPila)).toHaveLength(1);
    const audit = await auditOfCode(t.db, b.codigoPila);
    expect(audit.map((e) => [e.action, e.userEmail])).toEqual([
      ['CREACION', 'analista@example.com'],
      ['DELETE', 'jefe@example.com'],
    ]);
    expect(audit[1]!.details).toMatchObject({ etiqueta: 'ELIMINACION', reason: 'delete', startDate: '2024-05-06', businessDays: 10 });
    expect(audit[1]!.details).not.toHaveProperty('snapshot');
  });

  it('an edit (delete + create in one append) replaces the record everywhere', async () => {
    const c = record({ codigoPila: 'P0103001', workerId: 103, startDate: '2024-07-01', endDate: '2024-07-03', businessDays: 3 });
    const d = record({ codigoPila: 'P0103002', workerId: 103, startDate: '2024-07-02', endDate: '2024-07-05', businessDays: 4 });
    // Creation and edit in one append, so that one batch carries the whole life of `c`.
    await settle(await toWorker(store, 103, [created(c), ...editEvents(c, d)]));

    expect(await vacationByCode(t.db, c.codigoPila)).toMatchObject({ status: 'deleted', deletedReason: 'edit', replacedBy: d.codigoPila });
    expect(await vacationByCode(t.db, d.codigoPila)).toMatchObject({ status: 'live', replaces: c.codigoPila });
    expect((await vacationsOfWorker(t.db, 103)).map((v) => v.codigoPila)).toEqual([d.codigoPila]);
    expect((await contractLinksOfWorker(t.db, 103)).map((l) => l.codigoPila)).toEqual([d.codigoPila]);
    expect(await days('SG1', '2024-07-01', '2024-07-31')).toEqual(['2024-07-02:1', '2024-07-03:1', '2024-07-04:1', '2024-07-05:1']);
    expect((await auditOfCode(t.db, c.codigoPila)).map((e) => e.action)).toEqual(['CREACION', 'EDICION_BAJA']);
    expect((await auditOfCode(t.db, d.codigoPila)).map((e) => e.action)).toEqual(['EDICION']);
  });

  it('imports count compensated days apart and take no place in the unit', async () => {
    const e = record({
      codigoPila: 'P0104001',
      workerId: 104,
      compensated: true,
      businessDays: 6,
      startDate: '2024-08-05',
      endDate: '2024-08-12',
    });
    const f = record({ codigoPila: 'P0104002', workerId: 104, businessDays: 2, startDate: '2024-08-20', endDate: '2024-08-21' });
    await settle(await toWorker(store, 104, [imported(e, true), imported(f, false)]));

    expect(await vacationByCode(t.db, e.codigoPila)).toMatchObject({ approved: true, compensated: true, approvedAt: null });
    expect(await vacationByCode(t.db, f.codigoPila)).toMatchObject({ approved: false });
    expect(await days('SG1', '2024-08-01', '2024-08-31')).toEqual(['2024-08-20:1', '2024-08-21:1']);
    expect((await auditOfCode(t.db, e.codigoPila)).map((x) => x.action)).toEqual(['IMPORTACION']);
  });

  it('records audited queries, newest first, with the answer given', async () => {
    await toAudit(store, 105, [consultedEvent(105, { requestId: 'req-1' })]);
    await settle(await toAudit(store, 105, [contractCheckedEvent(105, { requestId: 'req-2' })]));

    const entries = await auditOfWorker(t.db, 105);
    expect(entries.map((e) => [e.action, e.requestId, e.codigoPila])).toEqual([
      ['VERIFICACION_CONTRATO', 'req-2', null],
      ['CONSULTA_DATOS', 'req-1', null],
    ]);
    expect(entries[0]!.details).toMatchObject({ estado: 'ACTIVO', activo: true, documentType: 'CC' });
    expect(entries[1]!.details).toMatchObject({ outcome: { estado: 'ACTIVO', diasDisponibles: 12.5 } });
    expect(entries[0]!.occurredAt).toBe('2024-03-01T15:00:00.000Z');
    expect(await auditOfWorker(t.db, 105, { limit: 1 })).toHaveLength(1);
  });

  it('answers zeros and nothing for an unknown worker or code', async () => {
    expect(await vacationByCode(t.db, 'nope')).toBeUndefined();
    expect(await vacationsOfWorker(t.db, 999)).toEqual([]);
    expect(await auditOfWorker(t.db, 999)).toEqual([]);
  });
});
