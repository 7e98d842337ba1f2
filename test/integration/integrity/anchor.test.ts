import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ANCHOR_STREAM,
  checkAnchor,
  latestAnchor,
  parseAnchorLine,
  anchorLine,
  recordAnchor,
  rootAt,
} from '../../../src/integrity/anchor.ts';
import { merkleRoot } from '../../../src/integrity/merkle.ts';
import { verifyChains } from '../../../src/integrity/verify.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import type { NewEvent } from '../../../src/store/types.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { FakeKurrentClient, FakeKurrentLog } from '../../support/fake-kurrent.ts';
import { asPlainStore } from '../../support/plain-store.ts';

const ev = (i: number): NewEvent => ({ id: randomUUID(), type: 'Tick', data: { i }, metadata: {} });

describe('anchors of the stream heads', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    for (let i = 0; i < 4; i++) {
      await store.append(
        ['worker-1', 'worker-2', 'pila-ñ', 'audit-worker-1'].map((stream) => ({
          stream,
          expectedRevision: 'any' as const,
          events: [ev(i)],
        })),
      );
    }
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('are the Merkle root of every stream head at a position, recorded in the anchors stream and printed as one line to keep', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const anchor = await recordAnchor(store, now);
    const heads = await Promise.all(
      ['worker-1', 'worker-2', 'pila-ñ', 'audit-worker-1'].map(async (s) => (await store.readStream(s)).at(-1)!),
    );
    expect(anchor).toMatchObject({
      root: merkleRoot(heads.map((h) => ({ stream: h.stream, revision: h.revision, hash: h.hash! }))),
      streams: 4,
      events: 16,
      anchoredAt: now.toISOString(),
    });
    expect((await latestAnchor(store))?.anchor).toEqual(anchor);
    expect(parseAnchorLine(anchorLine(anchor))).toEqual({ root: anchor.root, position: anchor.position });
    // The anchors stream is itself chained, and the next anchor covers its head.
    expect((await verifyChains(store, { streams: [ANCHOR_STREAM] })).breaks).toEqual([]);
    const second = await recordAnchor(store, now);
    expect(second.streams).toBe(5);
  });

  it('hold while the heads they stood for are there, whatever is appended after', async () => {
    const kept = await recordAnchor(store);
    await store.append([
      { stream: 'worker-1', expectedRevision: 'any', events: [ev(9)] },
      { stream: 'worker-3', expectedRevision: 'any', events: [ev(9)] },
    ]);
    expect(await checkAnchor(store, kept)).toEqual({ holds: true, root: kept.root });
  });

  it("tell the removal of a stream's newest events, which breaks no link", async () => {
    const kept = await recordAnchor(store);
    // Removed with care: the stream's own row follows, so the chains and the store agree.
    await t.db.query(`DELETE FROM events WHERE stream = 'worker-2' AND revision = 3`);
    await t.db.query(`UPDATE streams SET revision = 2 WHERE stream = 'worker-2'`);
    expect((await verifyChains(store, { all: true })).breaks).toEqual([]);
    const r = await checkAnchor(store, kept);
    expect(r.holds).toBe(false);
    expect(r.root).not.toBe(kept.root);
  });

  it('are computed the same by reading the log, as on KurrentDB', async () => {
    const position = await store.headPosition();
    const inDb = await rootAt(store, position);
    const read = await rootAt(asPlainStore(store), position);
    expect(read).toEqual(inDb);
  });
});

describe('anchors on KurrentDB', () => {
  it('hold, and tell an event removed from the end of a stream', async () => {
    const log = new FakeKurrentLog();
    const store = new KurrentEventStore(() => new FakeKurrentClient(log));
    for (let i = 0; i < 3; i++)
      await store.append([
        { stream: 'worker-1', expectedRevision: 'any', events: [ev(i)] },
        { stream: 'unit-SG1-2026-01', expectedRevision: 'any', events: [ev(i)] },
      ]);
    const kept = await recordAnchor(store);
    expect(kept).toMatchObject({ streams: 2, events: 6 });
    expect((await checkAnchor(store, kept)).holds).toBe(true);
    const removed = log.streams.get('worker-1')!.pop()!;
    log.all.splice(log.all.indexOf(removed), 1);
    expect((await checkAnchor(store, kept)).holds).toBe(false);
  });
});
