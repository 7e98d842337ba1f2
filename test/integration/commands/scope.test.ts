import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VacationCommands } from '../../../src/commands/vacation-commands.ts';
import type { Actor } from '../../../src/commands/types.ts';
import { workerStream } from '../../../src/events/streams.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { ADMIN_ACTOR, commandsOver, vacationRequest as request } from '../../support/commands.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { loadFixture } from '../../support/server.ts';

/**
 * The actor's scope as the handler passes it to the decider, on the store itself: each command on a
 * record of Juan (SG-OPS) by a head of SG-TEC is refused and appends nothing, whatever a read model says.
 */
describe("the commands hold a scoped actor to the record's subgerencia", () => {
  const JUAN = '1020307014';
  const tec: Actor = { ...ADMIN_ACTOR, scope: ['SG-TEC'] };
  const ops: Actor = { ...ADMIN_ACTOR, scope: ['SG-OPS'] };
  let t: TestDb;
  let store: PostgresEventStore;
  let commands: VacationCommands;
  const stream = async () => (await store.readStream(workerStream(1002))).length;

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    store = new PostgresEventStore(t.db);
    commands = commandsOver(t.db, store, { today: () => '2026-11-21' });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('refuses approve, delete, edit, interrupt and create outside the scope, writing nothing, and lets the head of SG-OPS act', async () => {
    const created = await commands.create(JUAN, request('2026-11-17', 6), ADMIN_ACTOR);
    if (!created.ok) throw new Error(`setup: ${JSON.stringify(created)}`);
    const code = created.value.value.record.codigoPila;
    const before = await stream();

    expect(await commands.approve(code, tec)).toEqual({ ok: false, kind: 'out_of_scope' });
    expect(await commands.delete(code, tec)).toEqual({ ok: false, kind: 'out_of_scope' });
    expect(await commands.edit(code, JUAN, request('2026-11-18', 6), tec)).toMatchObject({ ok: false, kind: 'out_of_scope' });
    expect(await commands.create(JUAN, request('2027-01-12', 6), tec)).toEqual({ ok: false, kind: 'out_of_scope' });
    expect(await stream()).toBe(before);

    expect((await commands.approve(code, ops)).ok).toBe(true);
    const interrupted = { date: '2026-11-23', reason: 'incapacidad' as const };
    expect(await commands.interrupt(code, interrupted, tec)).toEqual({ ok: false, kind: 'out_of_scope' });
    expect(await stream()).toBe(before + 1);
    expect((await commands.interrupt(code, interrupted, ops)).ok).toBe(true);
  });
});
