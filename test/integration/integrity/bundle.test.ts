import { createHash, randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FORMAT, type BundleRecord, type BundleSelection } from '../../../src/integrity/bundle.ts';
import { againstKept, verifyBundle } from '../../../src/integrity/bundle-verify.ts';
import { describeBreak } from '../../../src/integrity/chain-check.ts';
import { exportBundle, NothingSelectedError } from '../../../src/integrity/export.ts';
import { merkleRoot } from '../../../src/integrity/merkle.ts';
import { verifyChains } from '../../../src/integrity/verify.ts';
import { pilaStream } from '../../../src/events/streams.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { comparePositions } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import {
  approvedEvent,
  consultedEvent,
  created,
  deletedEvent,
  pilaAssignedEvent,
  record,
  toAudit,
  toWorker,
} from '../../support/event-builders.ts';

type Rec = BundleRecord & Record<string, any>;

async function exportToBuffer(store: PostgresEventStore, t: TestDb, selection: BundleSelection, asOf?: number): Promise<Buffer> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await exportBundle(store, out, { selection, asOf, now: new Date('2026-11-23T12:00:00Z') });
  return Buffer.concat(chunks);
}

const recordsOf = (bundle: Buffer): Rec[] =>
  gunzipSync(bundle)
    .toString('utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Rec);
const linesOf = (records: Rec[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');
/** Records gzipped again as they are: changed in place, the end record's digest left as it was. */
const bundleOf = (records: Rec[]): Buffer => gzipSync(linesOf(records));
/** Records gzipped again with the end record's digest recomputed: a bundle rewritten whole. */
const rewrittenWhole = (records: Rec[]): Buffer => {
  const before = linesOf(records.slice(0, -1));
  return gzipSync(before + linesOf([{ ...records.at(-1)!, digest: createHash('sha256').update(before).digest('hex') }]));
};
const verify = (bundle: Buffer) => verifyBundle(Readable.from([bundle]));

describe('audit bundles', () => {
  let t: TestDb;
  let store: PostgresEventStore;
  const a = record({ codigoPila: 'VAC_A_1', workerId: 1 });
  const b = record({ codigoPila: 'VAC_B_2', workerId: 1 });
  const c = record({ codigoPila: 'VAC_C_3', workerId: 2 });

  beforeAll(async () => {
    t = await freshDb();
    store = new PostgresEventStore(t.db);
    await t.db.exec(`
      INSERT INTO ref_subgerencias (id, nombre) VALUES ('SG1', 'Operaciones'), ('SG2', 'Ventas');
      INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names)
        VALUES (1, 'CC', '1001', 'Ana', 'Pérez'), (2, 'CC', '1002', 'Luis', 'Gómez'), (3, 'CC', '1003', 'Eva', 'Ríos');
      INSERT INTO ref_contracts (id, worker_id, subgerencia_id, settled, additional, base_salary)
        VALUES (10, 1, 'SG1', false, false, 3000000), (20, 2, 'SG1', false, false, 3000000), (30, 3, 'SG2', false, false, 3000000);
    `);
    for (const r of [a, b, c])
      await store.append([{ stream: pilaStream(r.codigoPila), expectedRevision: 'no_stream', events: [pilaAssignedEvent(r)] }]);
    await toWorker(store, 1, [created(a)]);
    await toAudit(store, 1, [consultedEvent(1)]);
    await toWorker(store, 1, [approvedEvent(a), created(b)]);
    await toWorker(store, 1, [deletedEvent(b)]);
    await toWorker(store, 2, [created(c)]);
    await store.append([
      { stream: 'unit-SG1-2024-03', expectedRevision: 'any', events: [{ id: randomUUID(), type: 'Tick', data: { i: 1 }, metadata: {} }] },
    ]);
    await store.append([
      { stream: 'unit-SG10-2024-03', expectedRevision: 'any', events: [{ id: randomUUID(), type: 'Tick', data: { i: 2 }, metadata: {} }] },
    ]);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("hold a worker's streams in byte order, each with its head, and an end record with the counts and the root of the heads", async () => {
    const recs = recordsOf(await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }));
    expect(recs[0]).toMatchObject({
      record: 'manifest',
      format: BUNDLE_FORMAT,
      formatVersion: 2,
      service: { name: 'vacaciones-service', version: expect.any(String) },
      exportedAt: '2026-11-23T12:00:00.000Z',
      selection: { kind: 'documento', documento: '1001' },
      asOf: null,
    });
    expect(recs[1]).toEqual({ record: 'worker', id: 1, documentType: 'CC', documentNumber: '1001' });
    const streams = ['audit-worker-1', 'pila-VAC_A_1', 'pila-VAC_B_2', 'worker-1'];
    expect([...new Set(recs.filter((r) => r.record === 'event').map((r) => r.stream))]).toEqual(streams);
    // The events as the store keeps them, hashes included.
    const worker = await store.readStream('worker-1');
    expect(recs.filter((r) => r.stream === 'worker-1' && r.record === 'event').map((r) => [r.revision, r.type, r.hash, r.id])).toEqual(
      worker.map((e) => [e.revision, e.type, e.hash, e.id]),
    );
    const heads = await Promise.all(streams.map(async (s) => (await store.readStream(s)).at(-1)!));
    expect(recs.filter((r) => r.record === 'head')).toEqual(
      heads.map((h) => ({ record: 'head', stream: h.stream, revision: h.revision, hash: h.hash })),
    );
    expect(recs.at(-1)).toEqual({
      record: 'end',
      workers: 1,
      streams: 4,
      events: 7,
      root: merkleRoot(heads.map((h) => ({ stream: h.stream, revision: h.revision, hash: h.hash! }))),
      // Every line before the end record, as written.
      digest: createHash('sha256')
        .update(linesOf(recs.slice(0, -1)))
        .digest('hex'),
    });
  });

  it('verify with nothing but the bundle when nothing was touched', async () => {
    const r = await verify(await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }));
    expect(r).toMatchObject({ workers: 1, streams: 4, events: 7, breaks: [], problems: [] });
  });

  it("of a subgerencia hold its workers' streams and its occupancy streams; of everything, every stream", async () => {
    const unit = recordsOf(await exportToBuffer(store, t, { kind: 'subgerencia', subgerencia: 'SG1' }));
    expect(unit.filter((r) => r.record === 'worker').map((r) => r.documentNumber)).toEqual(['1001', '1002']);
    expect(unit.filter((r) => r.record === 'head').map((r) => r.stream)).toEqual([
      'audit-worker-1',
      'pila-VAC_A_1',
      'pila-VAC_B_2',
      'pila-VAC_C_3',
      'unit-SG1-2024-03',
      'worker-1',
      'worker-2',
    ]);
    const all = await exportToBuffer(store, t, { kind: 'all' });
    expect(recordsOf(all).at(-1)).toMatchObject({ workers: 3, streams: 8, events: 11 });
    expect((await verify(all)).problems).toEqual([]);
  });

  it('refuse a document or a subgerencia that names nothing', async () => {
    await expect(exportToBuffer(store, t, { kind: 'documento', documento: '999' })).rejects.toThrow(NothingSelectedError);
    await expect(exportToBuffer(store, t, { kind: 'subgerencia', subgerencia: 'SG9' })).rejects.toThrow('no subgerencia SG9');
  });

  it('as of a time hold each stream as it stood then', async () => {
    // recordedAt is not covered by the chain: moved here to place the events in time.
    await t.db.query(`UPDATE events SET recorded_at = '2024-03-01T12:00:00Z' WHERE stream <> 'worker-1' OR revision < 2`);
    await t.db.query(`UPDATE events SET recorded_at = '2024-03-05T12:00:00Z' WHERE stream = 'worker-1' AND revision >= 2`);
    const bundle = await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }, Date.parse('2024-03-02T00:00:00Z'));
    const recs = recordsOf(bundle);
    expect(recs[0]!.asOf).toBe('2024-03-02T00:00:00.000Z');
    expect(recs.filter((r) => r.record === 'event' && r.stream === 'worker-1').map((r) => r.revision)).toEqual([0, 1]);
    expect(recs.find((r) => r.record === 'head' && r.stream === 'worker-1')).toMatchObject({ revision: 1 });
    expect(await verify(bundle)).toMatchObject({ events: 5, breaks: [], problems: [] });
  });

  describe('tampered with', () => {
    let recs: Rec[];
    beforeAll(async () => {
      recs = recordsOf(await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }));
    });
    const at = (stream: string, revision: number) =>
      recs.findIndex((r) => r.record === 'event' && r.stream === stream && r.revision === revision);

    it("fail on one event's data changed, naming the stream and revision", async () => {
      const changed = structuredClone(recs);
      changed[at('worker-1', 1)]!.data.approvedByUserId = 99;
      const r = await verify(bundleOf(changed));
      expect(r.breaks).toEqual([
        {
          stream: 'worker-1',
          revision: 1,
          kind: 'altered',
          expected: expect.stringMatching(/^[0-9a-f]{64}$/),
          found: recs[at('worker-1', 1)]!.hash,
        },
      ]);
      expect(describeBreak(r.breaks[0]!)).toMatch(/^stream worker-1 revision 1: the event does not match its hash/);
    });

    it('fail on one event deleted from the middle of a stream', async () => {
      const r = await verify(bundleOf(recs.filter((_, i) => i !== at('worker-1', 1))));
      expect(r.breaks).toMatchObject([{ stream: 'worker-1', revision: 2, kind: 'missing', previous: 0 }]);
      expect(describeBreak(r.breaks[0]!)).toMatch(/^stream worker-1 revision 2: revision 1 is missing before it/);
    });

    it('fail on two events swapped, in their lines or in their places', async () => {
      const lines = [...recs];
      [lines[at('worker-1', 1)], lines[at('worker-1', 2)]] = [lines[at('worker-1', 2)]!, lines[at('worker-1', 1)]!];
      expect((await verify(bundleOf(lines))).breaks).toMatchObject([{ stream: 'worker-1', revision: 2, kind: 'missing', previous: 0 }]);
      // Each takes the other's revision, hash and all.
      const places = structuredClone(recs);
      const [x, y] = [places[at('worker-1', 1)]!, places[at('worker-1', 2)]!];
      [x.revision, y.revision] = [2, 1];
      [places[at('worker-1', 1)], places[at('worker-1', 2)]] = [y, x];
      expect((await verify(bundleOf(places))).breaks).toMatchObject([
        { stream: 'worker-1', revision: 1, kind: 'altered', found: recs[at('worker-1', 2)]!.hash },
      ]);
    });

    it('fail on what the chains do not cover changed (a position, a recording time, a worker record, the manifest): by the digest of its lines, or rewritten whole, against the digest kept', async () => {
      const original = await verify(bundleOf(recs));
      expect(original).toMatchObject({ breaks: [], problems: [], digest: recs.at(-1)!.digest });
      const kept = { root: original.root, digest: original.digest! };
      const edits: [string, (r: Rec[]) => void][] = [
        ['a position', (r) => (r[at('worker-1', 2)]!.position = r[at('worker-1', 0)]!.position)],
        ['a recording time', (r) => (r[at('worker-1', 2)]!.recordedAt = '2020-01-01T00:00:00.000000Z')],
        ["a worker record's document number", (r) => (r.find((x) => x.record === 'worker')!.documentNumber = '1002')],
        ["the manifest's export time", (r) => (r[0]!.exportedAt = '2020-01-01T00:00:00.000Z')],
      ];
      for (const [what, edit] of edits) {
        const changed = structuredClone(recs);
        edit(changed);
        const inPlace = await verify(bundleOf(changed));
        expect(inPlace.breaks, what).toEqual([]);
        expect(inPlace.problems, what).toEqual([
          expect.stringMatching(
            /^the end record gives the digest [0-9a-f]{64}, the lines before it hash to [0-9a-f]{64}: the bundle was changed after it was written$/,
          ),
        ]);
        // Rewritten whole, the bundle holds by itself, with the same root: only the digest kept tells.
        const whole = await verify(rewrittenWhole(changed));
        expect(whole.problems, what).toEqual([]);
        expect(whole.root, what).toBe(original.root);
        expect(againstKept(whole, kept), what).toEqual([
          `the bundle's lines hash to ${whole.digest}, not to the digest kept, ${kept.digest}`,
        ]);
      }
      expect(againstKept(original, kept)).toEqual([]);
    });

    it("fail on a stream's newest event removed, on heads or root rewritten, and on a bundle cut short", async () => {
      const last = at('worker-1', 3);
      const truncated = await verify(rewrittenWhole(recs.filter((_, i) => i !== last)));
      expect(truncated.breaks).toEqual([]);
      expect(truncated.problems).toEqual([
        expect.stringMatching(/^stream worker-1: its head record says revision 3 with hash [0-9a-f]{64}, its events end at revision 2/),
        'the end record counts 7 events, the bundle holds 6',
        expect.stringMatching(/^the end record gives the root [0-9a-f]{64}, the heads recomputed give [0-9a-f]{64}$/),
      ]);
      // The head rewritten to match: the root in the end record still tells.
      const rewritten = structuredClone(recs.filter((_, i) => i !== last));
      Object.assign(
        rewritten.find((r) => r.record === 'head' && r.stream === 'worker-1')!,
        { revision: 2, hash: recs[last - 1]!.hash },
      );
      rewritten.at(-1)!.events = 6;
      expect((await verify(rewrittenWhole(rewritten))).problems).toEqual([expect.stringMatching(/^the end record gives the root /)]);

      expect((await verify(bundleOf(recs.slice(0, -1)))).problems).toEqual(['the bundle ends without its end record: it was cut short']);
      const bytes = bundleOf(recs);
      const cut = await verify(bytes.subarray(0, bytes.length - 20));
      // Whatever else the cut took (a head, perhaps) is named between.
      expect(cut.problems[0]).toMatch(/^the bundle cannot be read after line \d+: /);
      expect(cut.problems.at(-1)).toBe('the bundle ends without its end record: it was cut short');
      expect((await verify(gzipSync('not a bundle\n'))).problems).toEqual([expect.stringMatching(/^line 1 is not a bundle record/)]);
    });
  });

  describe('that are not whole bundles', () => {
    it('fail with one reason each: no records, an empty file, a file that is not gzip, no manifest, no end record, cut mid-file', async () => {
      const recs = recordsOf(await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }));
      const whole = bundleOf(recs);
      const cases: [string, Buffer, string][] = [
        ['gzip of nothing', gzipSync(''), 'the bundle holds no records: it is empty'],
        ['gzip of blank lines', gzipSync('\n\n'), 'the bundle holds no records: it is empty'],
        ['an empty file', Buffer.alloc(0), 'the file ends before its first line: it is empty or cut short'],
        ['not gzip', Buffer.from(recs.map((r) => JSON.stringify(r)).join('\n')), 'the file is not gzip: it is not an audit bundle'],
        ['no manifest', bundleOf(recs.slice(1)), 'line 1 is not the manifest of an audit bundle'],
        ['no end record', bundleOf(recs.slice(0, -1)), 'the bundle ends without its end record: it was cut short'],
        ['cut mid-file', whole.subarray(0, Math.floor(whole.length / 2)), 'the bundle cannot be read after line '],
      ];
      for (const [what, bytes, reason] of cases) {
        const r = await verify(bytes);
        expect(r.problems[0], what).toContain(reason);
        expect(r.breaks, what).toEqual([]);
      }
    });

    it('name the stream that comes out of order or twice, and go on checking', async () => {
      const recs = recordsOf(await exportToBuffer(store, t, { kind: 'documento', documento: '1001' }));
      const block = (stream: string) => recs.filter((r) => (r.record === 'event' || r.record === 'head') && r.stream === stream);
      const rest = recs.filter((r) => !['audit-worker-1', 'pila-VAC_A_1'].includes(r.stream));
      // pila-VAC_A_1 before audit-worker-1: the blocks of two streams swapped.
      const swapped = [...rest.slice(0, 2), ...block('pila-VAC_A_1'), ...block('audit-worker-1'), ...rest.slice(2)];
      const r = await verify(bundleOf(swapped));
      expect(r.problems).toContainEqual(
        expect.stringMatching(/^line \d+: stream audit-worker-1 comes after pila-VAC_A_1, out of order or twice$/),
      );
      expect(r.breaks).toEqual([]);
      // A stream given twice.
      const twice = [...recs.slice(0, -1), ...block('pila-VAC_B_2'), recs.at(-1)!];
      const again = await verify(bundleOf(twice));
      expect(again.problems).toContainEqual(
        expect.stringMatching(/^line \d+: stream pila-VAC_B_2 comes after worker-1, out of order or twice$/),
      );
    });
  });

  it('exported from a database someone edited, tell the same break the database verification tells', async () => {
    await t.db.query(`UPDATE events SET data = data || '{"businessDays": 30}' WHERE stream = 'worker-2' AND revision = 0`);
    const inDb = await verifyChains(store, { streams: ['worker-2'] });
    const r = await verify(await exportToBuffer(store, t, { kind: 'subgerencia', subgerencia: 'SG1' }));
    expect(r.breaks).toEqual(inDb.breaks);
    expect(r.breaks).toMatchObject([{ stream: 'worker-2', revision: 0, kind: 'altered' }]);
    expect(r.problems).toEqual([]);
  });
});

describe('an export whose reader goes away', () => {
  it('stops with an error and leaves no transaction open, its connection given back', async () => {
    const t = await freshDb();
    try {
      const store = new PostgresEventStore(t.db);
      // Enough that the export has to wait for its reader: megabytes of data that gzip cannot shrink much.
      for (let s = 0; s < 10; s++) {
        await store.append([
          {
            stream: `unit-SG1-2026-${String(s + 1).padStart(2, '0')}`,
            expectedRevision: 'no_stream',
            events: Array.from({ length: 500 }, (_, i) => ({
              id: randomUUID(),
              type: 'Tick',
              data: { i, note: randomUUID().repeat(20) },
              metadata: {},
            })),
          },
        ]);
      }
      const out = new PassThrough();
      // The reader takes the first chunk and hangs up, as a download given up.
      out.once('data', () => out.destroy());
      await expect(exportBundle(store, out, { selection: { kind: 'all' } })).rejects.toThrow();
      if (t.db.kind === 'postgres') {
        const open = await t.db.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        );
        expect(open.rows[0]!.n).toBe('0');
      }
      // The database is free for the next export.
      const again = new PassThrough();
      again.resume();
      expect(await exportBundle(store, again, { selection: { kind: 'all' } })).toMatchObject({ streams: 10, events: 5000 });
    } finally {
      await t.drop();
    }
  });
});

describe.skipIf(!hasServer())(`a stream whose positions run against its revisions (${NEEDS_SERVER})`, () => {
  it('is written so by two appends under way at once, and exports and verifies as any other', async () => {
    const t = await freshDb();
    try {
      const store = new PostgresEventStore(t.db);
      const tick = (i: number) => ({ id: randomUUID(), type: 'Tick', data: { i }, metadata: {} });
      // The first transaction draws its id on its first append, then waits for the second, which
      // writes revision 0 of the shared stream and commits; the first then writes its revision 1.
      await t.db.transaction(async (tx) => {
        await store.claimAppend(tx);
        await store.appendIn(tx, [{ stream: 'unit-SG1-2026-01', expectedRevision: 'any', events: [tick(0)] }]);
        await store.append([{ stream: 'unit-SG1-2026-02', expectedRevision: 'any', events: [tick(1)] }]);
        await store.appendIn(tx, [{ stream: 'unit-SG1-2026-02', expectedRevision: 'any', events: [tick(2)] }]);
      });
      const [first, second] = await store.readStream('unit-SG1-2026-02');
      expect([first!.revision, second!.revision]).toEqual([0, 1]);
      expect(comparePositions(second!.position, first!.position)).toBeLessThan(0);

      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      await exportBundle(store, out, { selection: { kind: 'all' } });
      expect(await verify(Buffer.concat(chunks))).toMatchObject({ streams: 2, events: 3, breaks: [], problems: [] });
    } finally {
      await t.drop();
    }
  });
});
