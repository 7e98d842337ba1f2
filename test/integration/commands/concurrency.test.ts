import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ruleMessages } from '../../../src/app/rule-messages.ts';
import type { VacationCommands } from '../../../src/commands/vacation-commands.ts';
import type { VacationRequest } from '../../../src/commands/types.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { ADMIN_ACTOR as actor, commandsOver, vacationRequest } from '../../support/commands.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { documentOf, generateDataset } from '../../support/dataset.ts';

const request = (over: Partial<VacationRequest> = {}): VacationRequest => vacationRequest('2026-03-02', 10, over);

describe('commands under concurrent requests (real database, real event store)', () => {
  let t: TestDb;
  let commands: VacationCommands;
  let store: PostgresEventStore;

  beforeAll(async () => {
    t = await freshDb({ poolSize: 20 });
    await importReferenceData(t.db, generateDataset({ workers: 21, maxPeople: 2 }));
    store = new PostgresEventStore(t.db);
    commands = commandsOver(t.db, store, { maxAttempts: 50 });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('lets exactly 2 of 20 workers of one subgerencia with a limit of 2 book the same dates', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => commands.create(documentOf(100_000 + i), request(), actor)));
    const created = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(created).toHaveLength(2);
    expect(refused).toHaveLength(18);
    for (const r of refused) {
      expect(r).toMatchObject({ ok: false, kind: 'rules' });
      expect(!r.ok && r.kind === 'rules' && ruleMessages(r.violations).join(' ')).toMatch(
        /Se alcanzó el máximo de 2 personas de vacaciones al mismo tiempo en la subgerencia SG-1/,
      );
    }
    // The stored facts agree: two live bookings on those dates in the month stream.
    const booked = (await store.readStream('unit-SG-1-2026-03')).filter((e) => e.type === 'SlotsBooked');
    expect(booked).toHaveLength(2);
  });

  it('lets exactly 1 of 20 overlapping requests of one worker through', async () => {
    const doc = documentOf(100_020);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => commands.create(doc, request({ startDate: '2026-05-04', days: 6 + (i % 5) }), actor)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    for (const r of results.filter((x) => !x.ok)) {
      expect(!r.ok && r.kind === 'rules' && ruleMessages(r.violations).join(' ')).toMatch(/se cruzan con otras vacaciones del trabajador/);
    }
    const created = (await store.readStream('worker-100020')).filter((e) => e.type === 'VacationCreated');
    expect(created).toHaveLength(1);
  });

  it('lets exactly one of a concurrent edit and delete of the same record win', async () => {
    const doc = documentOf(100_020);
    const made = await commands.create(doc, request({ startDate: '2026-08-03', days: 6, compensated: true }), actor);
    expect(made.ok).toBe(true);
    const code = made.ok ? made.value.value.record.codigoPila : '';
    const [edit, del] = await Promise.all([
      commands.edit(code, doc, request({ startDate: '2026-08-10', days: 7, compensated: true }), actor),
      commands.delete(code, actor),
    ]);
    expect([edit.ok, del.ok].filter(Boolean)).toHaveLength(1);
    const loser = edit.ok ? del : edit;
    expect(loser).toMatchObject({ ok: false, kind: 'record_not_found' });
  });
});
