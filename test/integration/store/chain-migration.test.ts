import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrations } from '../../../src/db/migrations.ts';
import { verifyChains } from '../../../src/integrity/verify.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';

describe('hash chain of the events stored before it (migrations 17 and 19)', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb({ migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('chains every stream stored so far, and the appends after it continue each chain', async () => {
    await migrate(
      t.db,
      migrations.filter((m) => m.version < 17),
    );
    const store = new PostgresEventStore(t.db);
    const ev = (i: number) => ({ id: randomUUID(), type: 'E', data: { i, texto: 'año 2026 — ñ' }, metadata: { n: i / 3 } });
    // Streams interleaved in the log, so that the chain follows revisions, not positions.
    for (let i = 0; i < 30; i++) {
      await store.append([{ stream: `s-${i % 4}`, expectedRevision: 'any', events: [ev(i), ev(i + 100)] }]);
    }
    await store.appendAny([{ stream: 'audit-1', expectedRevision: 'any', events: [ev(1)] }]);

    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 17),
      ),
    ).toEqual([17]);
    await store.append([{ stream: 's-0', expectedRevision: 'any', events: [ev(7)] }]);

    const rows = await t.db.query<{ stream: string }>('SELECT DISTINCT stream FROM events ORDER BY stream');
    expect(rows.rows.map((r) => r.stream)).toEqual(['audit-1', 's-0', 's-1', 's-2', 's-3']);
    for (const { stream } of rows.rows) {
      let previous = '';
      for (const e of await store.readStream(stream)) {
        expect(e.hash, `${stream}@${e.revision}`).toBe(chainHash(previous, e));
        previous = e.hash!;
      }
    }
    const missing = await t.db.query('SELECT 1 FROM events WHERE hash IS NULL');
    expect(missing.rows).toEqual([]);

    // Migration 19 writes the canonical JSON another way, to the same bytes: what was chained
    // before it verifies after it, and the chains go on.
    expect(
      await migrate(
        t.db,
        migrations.filter((m) => m.version <= 19),
      ),
    ).toEqual([18, 19]);
    await store.append([{ stream: 's-1', expectedRevision: 'any', events: [ev(8)] }]);
    expect(await verifyChains(store, { all: true })).toMatchObject({ events: 63, streams: 5, breaks: [] });
  });
});
