import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VacationCommands } from '../../../src/commands/vacation-commands.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { EventStore } from '../../../src/store/types.ts';
import { ADMIN_ACTOR as actor, commandsOver, vacationRequest as request } from '../../support/commands.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { loadFixture } from '../../support/server.ts';

/** How far a failed edit got is what its audit record and log line name: the record's worker and the new id. */
describe('a failed edit says how far it got', () => {
  let t: TestDb;
  let commands: VacationCommands;
  let failAppends = false;
  let code: string;

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    const real = new PostgresEventStore(t.db);
    // The real store, whose appends can be made to fail as a full disk would make them.
    const store: EventStore = Object.assign(Object.create(real) as EventStore, {
      append: (...args: Parameters<EventStore['append']>) => (failAppends ? Promise.reject(new Error('disk full')) : real.append(...args)),
    });
    commands = commandsOver(t.db, store, { today: () => '2026-11-21' });
    const created = await commands.create('1020307014', request('2026-03-02', 6), actor);
    if (!created.ok) throw new Error(`setup: ${JSON.stringify(created)}`);
    code = created.value.value.record.codigoPila;
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('given rules that fail, then the failure names the worker and the id allotted to the new record', async () => {
    const r = await commands.edit(code, '1020307014', request('2026-03-02', 4), actor);
    expect(r).toMatchObject({ ok: false, kind: 'rules', attempt: { workerId: 1002, newRecordId: expect.any(Number) } });
  });

  it('given the code of another worker, then no new id was allotted', async () => {
    const r = await commands.edit(code, '1020307007', request('2026-03-02', 6), actor);
    expect(r).toMatchObject({ ok: false, kind: 'not_owner', attempt: { workerId: 1002, newRecordId: null } });
  });

  it('given an unknown code, then there is no record to say anything of', async () => {
    const r = await commands.edit('VAC_1700000000000_00000000_00000000', '1020307014', request('2026-03-02', 6), actor);
    expect(r).toEqual({ ok: false, kind: 'record_not_found' });
  });

  it('given an append that throws, then the error comes back with both ids instead of being lost', async () => {
    failAppends = true;
    try {
      const r = await commands.edit(code, '1020307014', request('2026-03-09', 6), actor);
      expect(r).toMatchObject({ ok: false, kind: 'error', attempt: { workerId: 1002, newRecordId: expect.any(Number) } });
      expect(!r.ok && r.kind === 'error' && (r.error as Error).message).toBe('disk full');
    } finally {
      failAppends = false;
    }
  });
});
