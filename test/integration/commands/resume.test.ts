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
 * A request resumed after its process ended (Actor.resumes): the handler looks for the events an
 * earlier run wrote under the same API key and idempotency key, and answers from them as that
 * run did, or runs the request when there are none.
 */
describe('a command resumed under its idempotency key', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  let commands: VacationCommands;
  // Workers of the fixture (1001 to 1003) spread over the tests, so that no balance or limit runs out.
  const docOf = (worker: number) => String(1020307000 + 7 * (worker - 1000));
  const keyed = (key: string, over: Partial<Actor> = {}): Actor => ({
    ...ADMIN_ACTOR,
    apiKeyId: 'key-a',
    apiKeyName: 'a',
    idempotencyKey: key,
    ...over,
  });
  const count = async (worker: number) => (await store.readStream(workerStream(worker))).length;
  /** The answer without its position, which names the worker's last event of the append rather than the append's last. */
  const answer = <T>(r: { ok: boolean; value?: { value: T } }) => (r.ok ? r.value!.value : r);

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    store = new PostgresEventStore(t.db);
    commands = commandsOver(t.db, store, { today: () => '2026-02-01' });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('answers a create already written with what its first run answered, and writes nothing', async () => {
    const doc = docOf(1001);
    const first = await commands.create(doc, request('2026-03-02', 6), keyed('k-create'));
    if (!first.ok) throw new Error(JSON.stringify(first));
    const before = await count(1001);
    const again = await commands.create(doc, request('2026-03-02', 6), keyed('k-create', { resumes: true }));
    expect(answer(again)).toEqual(answer(first));
    expect(again.ok && again.value.position.commit).toBe(first.value.position.commit);
    expect(await count(1001)).toBe(before);
  });

  it('answers an edit, an approval and a deletion already written as their first runs did', async () => {
    const doc = docOf(1002);
    const count2 = () => count(1002);
    const made = await commands.create(doc, request('2026-04-06', 6), keyed('k-made'));
    if (!made.ok) throw new Error(JSON.stringify(made));
    const code = made.value.value.record.codigoPila;

    const edited = await commands.edit(code, doc, request('2026-04-13', 6), keyed('k-edit'));
    if (!edited.ok) throw new Error(JSON.stringify(edited));
    let before = await count2();
    expect(answer(await commands.edit(code, doc, request('2026-04-13', 6), keyed('k-edit', { resumes: true })))).toEqual(answer(edited));
    expect(await count2()).toBe(before);

    const newCode = edited.value.value.record.codigoPila;
    const approved = await commands.approve(newCode, keyed('k-approve'));
    expect(approved.ok).toBe(true);
    before = await count2();
    // Run again without resuming, the approval would be refused: the record is approved already.
    expect(await commands.approve(newCode, keyed('k-approve2'))).toEqual({ ok: false, kind: 'approved' });
    expect(answer(await commands.approve(newCode, keyed('k-approve', { resumes: true })))).toEqual(answer(approved));
    expect(await count2()).toBe(before);

    const other = await commands.create(doc, request('2026-05-04', 6), keyed('k-other'));
    if (!other.ok) throw new Error(JSON.stringify(other));
    const deleted = await commands.delete(other.value.value.record.codigoPila, keyed('k-delete'));
    expect(deleted.ok).toBe(true);
    before = await count2();
    expect(answer(await commands.delete(other.value.value.record.codigoPila, keyed('k-delete', { resumes: true })))).toEqual(
      answer(deleted),
    );
    expect(await count2()).toBe(before);
  });

  it('runs a resumed request once when nothing was written under its key', async () => {
    const before = await count(1003);
    const r = await commands.create(docOf(1003), request('2026-06-01', 6), keyed('k-never-written', { resumes: true }));
    expect(r.ok).toBe(true);
    expect(await count(1003)).toBe(before + 1);
  });

  it('takes no event written under the same key by another API key, nor a failed edit recorded in the audit stream', async () => {
    const doc = docOf(1001);
    const mine = await commands.create(doc, request('2026-10-05', 6), keyed('k-shared'));
    if (!mine.ok) throw new Error(JSON.stringify(mine));
    const code = mine.value.value.record.codigoPila;
    // Another API key's request with the same key string is a request of its own.
    const theirs = await commands.edit(code, doc, request('2026-10-13', 6), keyed('k-shared', { apiKeyId: 'key-b', resumes: true }));
    expect(theirs.ok).toBe(true);

    // An edit refused by the rules writes only its audit record (VacationEditFailed) under its key.
    const newCode = theirs.ok ? theirs.value.value.record.codigoPila : '';
    const refused = await commands.edit(newCode, doc, request('2026-10-13', 400), keyed('k-refused'));
    expect(refused).toMatchObject({ ok: false, kind: 'rules' });
    const before = await count(1001);
    const resumed = await commands.edit(newCode, doc, request('2026-10-20', 6), keyed('k-refused', { resumes: true }));
    expect(resumed.ok).toBe(true);
    expect(await count(1001)).toBeGreaterThan(before);
  });
});
