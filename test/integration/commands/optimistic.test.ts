import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages } from '../../../src/app/rule-messages.ts';
import type { VacationCommands } from '../../../src/commands/vacation-commands.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { ADMIN_ACTOR as actor, commandsOver, vacationRequest as request } from '../../support/commands.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { documentOf, generateDataset } from '../../support/dataset.ts';

/**
 * Two command handlers over one store stand for two service instances: each holds its own
 * streams in memory, so what one writes leaves the other's picture behind.
 */
describe('creates decided on the streams as held', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let a: VacationCommands;
  let b: VacationCommands;
  let conflicts = 0;
  const types = async (stream: string) => (await store.readStream(stream)).map((e) => e.type);

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, generateDataset({ workers: 6, maxPeople: 2 }));
    store = new PostgresEventStore(t.db);
    const handler = () => commandsOver(t.db, store, { onConflict: () => conflicts++ });
    a = handler();
    b = handler();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('ends a create decided on a stale picture in a conflict, then refuses it on fresh reads', async () => {
    const doc = documentOf(100_000);
    const calc = await a.calculate(doc, request('2026-03-09', 6));
    expect(calc, JSON.stringify(calc)).toMatchObject({ ok: true });
    // The other instance books overlapping dates; this one still holds the worker without them.
    expect((await b.create(doc, request('2026-03-02', 10), actor)).ok).toBe(true);
    conflicts = 0;
    const r = await a.create(doc, request('2026-03-09', 6), actor);
    expect(r).toMatchObject({ ok: false, kind: 'rules' });
    // Decided first on the picture held, which the store refused.
    expect(conflicts).toBe(1);
    expect(await types('worker-100000')).toEqual(['VacationCreated']);
  });

  it('never refuses on a stale picture: a booking deleted elsewhere no longer stands in the way', async () => {
    const doc = documentOf(100_001);
    const first = await a.create(doc, request('2026-04-06', 6), actor);
    expect(first.ok).toBe(true);
    const code = first.ok ? first.value.value.record.codigoPila : '';
    expect((await b.delete(code, actor)).ok).toBe(true);
    // This instance still holds the first booking; a fresh read shows it gone.
    const again = await a.create(doc, request('2026-04-06', 6), actor);
    expect(again.ok).toBe(true);
    expect(await types('worker-100001')).toEqual(['VacationCreated', 'VacationDeleted', 'VacationCreated']);
  });

  it('keeps the limit of people at once when the month held is behind', async () => {
    const [w3, w4, w5] = [100_002, 100_003, 100_004].map(documentOf);
    // This instance holds the month with nobody booked yet.
    expect((await a.calculate(w3!, request('2026-06-01', 6))).ok).toBe(true);
    expect((await b.create(w4!, request('2026-06-01', 6), actor)).ok).toBe(true);
    expect((await b.create(w5!, request('2026-06-01', 6), actor)).ok).toBe(true);
    const r = await a.create(w3!, request('2026-06-01', 6), actor);
    expect(r).toMatchObject({ ok: false, kind: 'rules' });
    expect(!r.ok && r.kind === 'rules' && ruleMessages(r.violations).join(' ')).toMatch(/máximo de 2 personas/);
    expect((await store.readStream('unit-SG-1-2026-06')).filter((e) => e.type === 'SlotsBooked')).toHaveLength(2);
  });

  it('holds what it appended itself, so its next create for the worker needs no read and no retry', async () => {
    const doc = documentOf(100_005);
    let reads = 0;
    const counting = Object.assign(Object.create(store) as PostgresEventStore, {
      readStreams: (r: { stream: string; fromRevision: number }[]) => (reads++, store.readStreams(r)),
    });
    const c = commandsOver(t.db, counting);
    expect((await c.create(doc, request('2026-07-06', 6), actor)).ok).toBe(true);
    const before = reads;
    expect((await c.create(doc, request('2026-07-21', 6), actor)).ok).toBe(true);
    expect(reads).toBe(before);
    expect(await types('worker-100005')).toEqual(['VacationCreated', 'VacationCreated']);
  });
});

describe('what a decision reads', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let streamsRead: string[] = [];

  beforeAll(async () => {
    t = await freshDb();
    // No limit of people on vacation at once: rule (d) does not apply.
    await importReferenceData(t.db, generateDataset({ workers: 3, maxPeople: null }));
    store = new PostgresEventStore(t.db);
  });
  afterAll(async () => {
    await t?.drop();
  });

  const counting = () =>
    Object.assign(Object.create(store) as PostgresEventStore, {
      readStreams: (r: { stream: string; fromRevision: number }[]) => {
        streamsRead.push(...r.map((x) => x.stream));
        return store.readStreams(r);
      },
    });

  it('reads no month stream of the subgerencia without a limit of people, and still books the places', async () => {
    const c = commandsOver(t.db, counting());
    streamsRead = [];
    const doc = documentOf(100_000);
    expect((await c.calculate(doc, request('2026-03-26', 6))).ok).toBe(true);
    expect((await c.create(doc, request('2026-03-26', 6), actor)).ok).toBe(true);
    expect(streamsRead.length).toBeGreaterThan(0);
    expect(streamsRead.filter((s) => s.startsWith('unit-'))).toEqual([]);
    // The period runs into April: both months hold its booking, for the occupancy read model.
    for (const month of ['2026-03', '2026-04'])
      expect((await store.readStream(`unit-SG-1-${month}`)).map((e) => e.type)).toEqual(['SlotsBooked']);
  });

  it('folds a worker again once the stream grew elsewhere: a booking of another instance is seen', async () => {
    const a = commandsOver(t.db, counting());
    const b = commandsOver(t.db, store);
    const doc = documentOf(100_001);
    expect((await a.calculate(doc, request('2026-05-04', 6))).ok).toBe(true);
    expect((await a.calculate(doc, request('2026-05-04', 6))).ok).toBe(true);
    expect((await b.create(doc, request('2026-05-04', 6), actor)).ok).toBe(true);
    const r = await a.calculate(doc, request('2026-05-04', 6));
    expect(r).toMatchObject({ ok: false, kind: 'rules' });
    expect(!r.ok && r.kind === 'rules' && r.violations.map((v) => v.rule)).toContain('overlap');
  });
});
