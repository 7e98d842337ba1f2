import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db, Queryable } from '../../../src/db/types.ts';
import type { DecodedEvent } from '../../../src/events/codec.ts';
import { BatchCommitter } from '../../../src/projections/runtime/committer.ts';
import { readCheckpoints } from '../../../src/projections/index.ts';
import { defineProjector, type Projector, type Row } from '../../../src/projections/types.ts';
import { START, type Position } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

/** A projector that records the ids of the events it is given in a table of its own. */
function recorder(name: string, opts: { failing?: boolean } = {}): Projector {
  return defineProjector<Row>({
    name,
    label: `Prueba ${name}`,
    readBy: 'none',
    handles: new Set(['Noted']),
    table: `t_${name}`,
    columns: { id: 'text NOT NULL' },
    keyColumn: 'id',
    appendOnly: true,
    ddl: () => `CREATE TABLE IF NOT EXISTS t_${name} (id text PRIMARY KEY)`,
    unitOf: (e) => e.stored.id,
    evolve: (unit, events) => {
      if (opts.failing) throw new Error(`${name} cannot apply`);
      return unit ?? { id: events[0]!.stored.id };
    },
    rowsOf: (row) => [row],
    unitFrom: (rows) => rows[0]!,
  });
}

const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });
const noted = (id: string) => ({ stored: { id }, event: { type: 'Noted', data: {} } }) as unknown as DecodedEvent;

describe('batch committer', () => {
  let t: TestDb;
  let transactions = 0;
  let db: Db;

  beforeAll(async () => {
    t = await freshDb();
    // Counts the transactions that reach the database, to tell grouped commits from single ones.
    db = Object.assign(Object.create(t.db) as Db, {
      transaction: <T>(fn: (tx: Queryable) => Promise<T>, o?: { durable?: boolean }) => {
        transactions++;
        return t.db.transaction(fn, o);
      },
    });
  });
  beforeEach(async () => {
    transactions = 0;
    await t.db.exec('DROP TABLE IF EXISTS t_a, t_b, t_c, t_bad; TRUNCATE projection_checkpoints');
    for (const p of [recorder('a'), recorder('b'), recorder('c'), recorder('bad')]) await t.db.exec(p.ddl(''));
  });
  afterAll(async () => {
    await t?.drop();
  });

  const rows = async (name: string) => (await t.db.query<{ id: string }>(`SELECT id FROM t_${name} ORDER BY id`)).rows.map((r) => r.id);

  it('commits the batches handed over together in one transaction, each with its checkpoint', async () => {
    const c = new BatchCommitter(db);
    const results = await Promise.all([
      c.commit({ projector: recorder('a'), from: START, to: at(2), events: [noted('e1'), noted('e2')] }),
      c.commit({ projector: recorder('b'), from: START, to: at(2), events: [noted('e2')] }),
      c.commit({ projector: recorder('c'), from: START, to: at(2), events: [] }),
    ]);
    expect(results).toEqual([true, true, true]);
    expect(transactions).toBe(1);
    expect(await rows('a')).toEqual(['e1', 'e2']);
    expect(await rows('b')).toEqual(['e2']);
    const cps = await readCheckpoints(t.db, ['a', 'b', 'c']);
    expect([...cps.values()]).toEqual([at(2), at(2), at(2)]);

    // Later batches move from the stored checkpoints.
    expect(await c.commit({ projector: recorder('a'), from: at(2), to: at(3), events: [noted('e3')] })).toBe(true);
    expect((await readCheckpoints(t.db, ['a'])).get('a')).toEqual(at(3));
  });

  it('leaves out a batch whose checkpoint moved under it, without touching its table, and commits the rest', async () => {
    const c = new BatchCommitter(db);
    await c.commit({ projector: recorder('a'), from: START, to: at(5), events: [] });
    await c.commit({ projector: recorder('b'), from: START, to: at(5), events: [] });
    transactions = 0;
    const [stale, fresh] = await Promise.all([
      // This runner believes `a` is still at 4: someone else moved it to 5.
      c.commit({ projector: recorder('a'), from: at(4), to: at(6), events: [noted('late')] }),
      c.commit({ projector: recorder('b'), from: at(5), to: at(6), events: [noted('on-time')] }),
    ]);
    expect([stale, fresh]).toEqual([false, true]);
    expect(transactions).toBe(1);
    expect(await rows('a')).toEqual([]);
    expect(await rows('b')).toEqual(['on-time']);
    const cps = await readCheckpoints(t.db, ['a', 'b']);
    expect(cps.get('a')).toEqual(at(5));
    expect(cps.get('b')).toEqual(at(6));
  });

  it('fails every batch of a transaction when one fails, writing nothing; alone, the others go through', async () => {
    const c = new BatchCommitter(db);
    const grouped = await Promise.allSettled([
      c.commit({ projector: recorder('a'), from: START, to: at(1), events: [noted('x')] }),
      c.commit({ projector: recorder('bad', { failing: true }), from: START, to: at(1), events: [noted('x')] }),
    ]);
    expect(grouped.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await rows('a')).toEqual([]);
    expect((await readCheckpoints(t.db, ['a', 'bad'])).get('a')).toEqual(START);

    transactions = 0;
    expect(await c.commit({ projector: recorder('a'), from: START, to: at(1), events: [noted('x')] }, true)).toBe(true);
    await expect(
      c.commit({ projector: recorder('bad', { failing: true }), from: START, to: at(1), events: [noted('x')] }, true),
    ).rejects.toThrow('bad cannot apply');
    expect(transactions).toBe(2);
    expect(await rows('a')).toEqual(['x']);
  });
});
