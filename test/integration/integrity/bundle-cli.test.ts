import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merkleRoot } from '../../../src/integrity/merkle.ts';
import { pilaStream } from '../../../src/events/streams.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
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
import { cliTarget, runCli, type CliRun, type CliTarget } from '../reference/helpers.ts';

type Rec = Record<string, any>;
const linesOf = (records: Rec[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');
/** Records gzipped again into `file`: as they are, or rewritten whole (the end record's digest recomputed). */
function writeBundle(file: string, records: Rec[], how: 'in place' | 'whole' = 'in place'): string {
  const before = linesOf(records.slice(0, -1));
  const end = how === 'whole' ? { ...records.at(-1)!, digest: createHash('sha256').update(before).digest('hex') } : records.at(-1)!;
  writeFileSync(file, gzipSync(before + linesOf([end])));
  return file;
}

/** The CLI with no database it could reach: a server address nothing listens on, and no data directory. */
const offline = (...args: string[]): Promise<CliRun> =>
  runCli({ ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none', DATA_DIR: '/nonexistent' }, args);

describe('vacaciones audit export, audit verify --bundle and replay --bundle', () => {
  let cli: CliTarget;
  let dir: string;
  let bundle: string;
  /** The line the export printed, kept apart as an auditor would. */
  let exportedLine: string;
  const a = record({ codigoPila: 'VAC_A_1', workerId: 1, startDate: '2024-03-04', endDate: '2024-03-15' });
  const b = record({ codigoPila: 'VAC_B_2', workerId: 1, startDate: '2024-05-06', endDate: '2024-05-17' });

  beforeAll(async () => {
    cli = await cliTarget();
    dir = mkdtempSync(join(tmpdir(), 'vac-bundle-'));
    bundle = join(dir, 'ana.ndjson.gz');
    await cli.inspect(async (db) => {
      await db.query(
        `INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names) VALUES (1, 'CC', '1001', 'Ana', 'Pérez')`,
      );
      const store = new PostgresEventStore(db);
      for (const r of [a, b])
        await store.append([{ stream: pilaStream(r.codigoPila), expectedRevision: 'no_stream', events: [pilaAssignedEvent(r)] }]);
      await toWorker(store, 1, [created(a)]);
      await toAudit(store, 1, [consultedEvent(1)]);
      await toWorker(store, 1, [approvedEvent(a)]);
      await toWorker(store, 1, [created(b)]);
      await toWorker(store, 1, [deletedEvent(b)]);
      // Later events, for --as-of: the recording time is not part of the chain.
      await db.query(`UPDATE events SET recorded_at = '2024-03-01T12:00:00Z' WHERE NOT (stream = 'worker-1' AND revision >= 2)`);
      await db.query(`UPDATE events SET recorded_at = '2024-05-01T12:00:00Z' WHERE stream = 'worker-1' AND revision >= 2`);
    });
  });
  afterAll(async () => {
    await cli?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports a bundle that verifies and replays with no database, as the live replay does', async () => {
    const exported = await cli.run('audit', 'export', '--documento', '1001', '--out', bundle);
    expect(exported).toMatchObject({ code: 0, stderr: [] });
    expect(exported.stdout).toEqual([
      expect.stringMatching(
        new RegExp(`^exported 7 events in 4 streams \\(1 workers\\) to ${bundle} in [\\d.]+ s: root [0-9a-f]{64} digest [0-9a-f]{64}$`),
      ),
    ]);
    expect(existsSync(`${bundle}.partial`)).toBe(false);
    exportedLine = exported.stdout[0]!;

    const verified = await offline('audit', 'verify', '--bundle', bundle);
    expect(verified).toMatchObject({ code: 0, stderr: [] });
    expect(verified.stdout).toEqual([
      expect.stringMatching(/^bundle .*ana\.ndjson\.gz: document 1001, exported \d{4}-\d\d-\d\dT.* by vacaciones-service \d+\.\d+\.\d+$/),
      expect.stringMatching(
        /^verified bundle .*ana\.ndjson\.gz \(1 workers, root [0-9a-f]{64}, digest [0-9a-f]{64}\): 7 events in 4 streams in .*: every chain holds$/,
      ),
    ]);
    const [, root, digest] = /root ([0-9a-f]{64}) digest ([0-9a-f]{64})$/.exec(exportedLine)!;
    expect(verified.stdout[1]).toContain(`root ${root}, digest ${digest})`);

    for (const extra of [[], ['--json'], ['--as-of', '2024-04-01'], ['--as-of', '2024-04-01', '--json']]) {
      const live = await cli.run('replay', '--documento', '1001', ...extra);
      const fromBundle = await offline('replay', '--bundle', bundle, '--documento', '1001', ...extra);
      expect(live).toMatchObject({ code: 0, stderr: [] });
      expect(fromBundle).toEqual(live);
    }
    // The replay shows the events and the state they leave.
    const table = await offline('replay', '--bundle', bundle, '--documento', '1001');
    expect(table.stdout[0]).toBe('worker 1 (document 1001): 5 events');
    const steps = JSON.parse((await offline('replay', '--bundle', bundle, '--documento', '1001', '--json')).stdout.join('\n')) as {
      type: string;
      stateAfter: { liveRecords: number };
    }[];
    expect(steps.map((s) => [s.type, s.stateAfter.liveRecords])).toEqual([
      ['VacationCreated', 1],
      ['VacationDataConsulted', 1],
      ['VacationApproved', 1],
      ['VacationCreated', 2],
      ['VacationDeleted', 1],
    ]);
  }, 600_000);

  it('exports a worker as of a time: each stream as it stood then', async () => {
    const cut = join(dir, 'cut.ndjson.gz');
    expect(await cli.run('audit', 'export', '--documento', '1001', '--as-of', '2024-04-01', '--out', cut)).toMatchObject({
      code: 0,
      stdout: [expect.stringMatching(/^exported 5 events in 4 streams/)],
    });
    const live = await cli.run('replay', '--documento', '1001', '--as-of', '2024-04-01', '--json');
    expect(await offline('replay', '--bundle', cut, '--documento', '1001', '--json')).toEqual(live);
  }, 300_000);

  it('fails a tampered bundle with the broken link named, and will not replay it', async () => {
    const recordsOf = () =>
      gunzipSync(readFileSync(bundle))
        .toString('utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
    const records = recordsOf();
    const approval = records.find((r) => r.record === 'event' && r.type === 'VacationApproved')!;
    approval.data.approvedByUserId = 1;
    const tampered = join(dir, 'tampered.ndjson.gz');
    writeFileSync(tampered, gzipSync(records.map((r) => JSON.stringify(r)).join('\n') + '\n'));

    const r = await offline('audit', 'verify', '--bundle', tampered);
    expect(r.code).toBe(1);
    expect(r.stdout[1]).toMatch(
      /^BROKEN stream worker-1 revision 1: the event does not match its hash \(changed, or not in its place\): expected [0-9a-f]{64}, found [0-9a-f]{64}$/,
    );
    expect(r.stdout[2]).toMatch(/: 7 events in 4 streams in .*: 1 broken$/);
    expect(r.stderr).toEqual([`vacaciones: hash chain broken: ${r.stdout[1]!.slice('BROKEN '.length)}`]);

    expect(await offline('replay', '--bundle', tampered, '--documento', '1001')).toMatchObject({
      code: 1,
      stderr: [expect.stringMatching(/^vacaciones: the bundle's hash chain is broken: stream worker-1 revision 1: /)],
    });

    // Rewritten whole: the newest event gone, its stream's head and the end record recomputed. The
    // bundle alone holds; against the root kept from the export, it does not.
    const rewritten = recordsOf();
    const last = rewritten.findLastIndex((r) => r.record === 'event' && r.stream === 'worker-1');
    const [removed] = rewritten.splice(last, 1);
    Object.assign(rewritten[last]!, { revision: removed!.revision - 1, hash: rewritten[last - 1]!.hash });
    const heads = rewritten.filter((r) => r.record === 'head');
    Object.assign(rewritten.at(-1)!, {
      events: 6,
      root: merkleRoot(heads.map((h) => ({ stream: h.stream, revision: h.revision, hash: h.hash }))),
    });
    const whole = writeBundle(join(dir, 'rewritten.ndjson.gz'), rewritten, 'whole');
    expect(await offline('audit', 'verify', '--bundle', whole)).toMatchObject({ code: 0, stderr: [] });
    const against = await offline('audit', 'verify', '--bundle', whole, '--root', exportedLine);
    expect(against.code).toBe(1);
    expect(against.stdout.slice(-2)).toEqual([
      expect.stringMatching(/^PROBLEM the heads have the root [0-9a-f]{64}, not the root kept, [0-9a-f]{64}$/),
      expect.stringMatching(/^PROBLEM the bundle's lines hash to [0-9a-f]{64}, not to the digest kept, [0-9a-f]{64}$/),
    ]);
    expect(await offline('audit', 'verify', '--bundle', bundle, '--root', exportedLine)).toMatchObject({ code: 0, stderr: [] });
    // The root alone, as it was kept before bundles carried a digest, is still taken.
    expect(await offline('audit', 'verify', '--bundle', whole, '--root', exportedLine.split(' digest ')[0]!)).toMatchObject({ code: 1 });

    // Cut short: whatever is left of it verifies as what it is.
    const cut = join(dir, 'cut-short.ndjson.gz');
    writeFileSync(
      cut,
      gzipSync(
        recordsOf()
          .slice(0, -1)
          .map((x) => JSON.stringify(x))
          .join('\n') + '\n',
      ),
    );
    const short = await offline('audit', 'verify', '--bundle', cut);
    expect(short.code).toBe(1);
    expect(short.stdout.at(-1)).toBe('PROBLEM the bundle ends without its end record: it was cut short');
    expect(short.stderr).toEqual(['vacaciones: the bundle does not hold: the bundle ends without its end record: it was cut short']);
  }, 300_000);

  it('fails a bundle whose fields outside the chains were changed: by its own digest, or rewritten whole, against the line kept', async () => {
    const records = (gunzipSync(readFileSync(bundle)).toString('utf8').trim().split('\n') as string[]).map((l) => JSON.parse(l) as Rec);
    const event = (revision: number) => records.find((r) => r.record === 'event' && r.stream === 'worker-1' && r.revision === revision)!;
    const edits: [string, (r: Rec[]) => void][] = [
      ['position', () => (event(2).position = event(0).position)],
      ['recorded-at', () => (event(2).recordedAt = '2024-03-02T12:00:00.000000Z')],
      ['document', (r) => (r.find((x) => x.record === 'worker')!.documentNumber = '1002')],
      ['exported-at', (r) => (r[0]!.exportedAt = '2020-01-01T00:00:00.000Z')],
    ];
    const pristine = structuredClone(records);
    for (const [name, edit] of edits) {
      records.splice(0, records.length, ...structuredClone(pristine));
      edit(records);
      const whole = writeBundle(join(dir, `${name}-whole.ndjson.gz`), records, 'whole');
      const r = await offline('audit', 'verify', '--bundle', whole, '--root', exportedLine);
      expect(r.code, name).toBe(1);
      expect(r.stdout.at(-1), name).toMatch(/^PROBLEM the bundle's lines hash to [0-9a-f]{64}, not to the digest kept, [0-9a-f]{64}$/);
      expect(r.stderr, name).toEqual([expect.stringMatching(/^vacaciones: the bundle does not hold: the bundle's lines hash to /)]);
    }
    // Changed in place, with no line kept: the end record's own digest tells, and replay refuses it.
    const inPlace = writeBundle(join(dir, 'recorded-at-in-place.ndjson.gz'), records);
    expect(await offline('audit', 'verify', '--bundle', inPlace)).toMatchObject({
      code: 1,
      stderr: [
        expect.stringMatching(
          /^vacaciones: the bundle does not hold: the end record gives the digest [0-9a-f]{64}, the lines before it hash to /,
        ),
      ],
    });
    expect(await offline('replay', '--bundle', inPlace, '--documento', '1001', '--as-of', '2024-04-01')).toMatchObject({
      code: 1,
      stderr: [
        `vacaciones: the bundle does not hold: its lines do not hash to the digest of its end record: run audit verify --bundle ${inPlace}`,
      ],
    });
  }, 300_000);

  it('still reads a bundle of format version 1 (no digest): its chains, heads and root are checked, a note says what is not, and it replays', async () => {
    const records = (gunzipSync(readFileSync(bundle)).toString('utf8').trim().split('\n') as string[]).map((l) => JSON.parse(l) as Rec);
    records[0]!.formatVersion = 1;
    delete records.at(-1)!.digest;
    const v1 = writeBundle(join(dir, 'format-1.ndjson.gz'), records);
    const verified = await offline('audit', 'verify', '--bundle', v1, '--root', exportedLine.split(' digest ')[0]!);
    expect(verified).toMatchObject({ code: 0, stderr: [] });
    expect(verified.stdout).toContain(
      'NOTE the bundle is of format version 1, which carries no digest of its lines: its chains, heads and root are checked, ' +
        'not its positions, recording times, worker records or manifest; export it again for a bundle that covers them',
    );
    expect(verified.stdout[1]).toMatch(/\(1 workers, root [0-9a-f]{64}, digest none\): 7 events in 4 streams in .*: every chain holds$/);
    expect(await offline('replay', '--bundle', v1, '--documento', '1001', '--json')).toEqual(
      await cli.run('replay', '--documento', '1001', '--json'),
    );
    // A kept line with a digest asks for more than such a bundle can show.
    expect(await offline('audit', 'verify', '--bundle', v1, '--root', exportedLine)).toMatchObject({ code: 1 });

    // What its chains cover still tells.
    records.find((r) => r.record === 'event' && r.type === 'VacationApproved')!.data.approvedByUserId = 2;
    const altered = await offline('audit', 'verify', '--bundle', writeBundle(join(dir, 'format-1-altered.ndjson.gz'), records));
    expect(altered.code).toBe(1);
    expect(altered.stdout.some((l) => l.startsWith('BROKEN stream worker-1 revision 1:'))).toBe(true);

    // A format this service does not know is refused.
    records[0]!.formatVersion = 3;
    expect(await offline('audit', 'verify', '--bundle', writeBundle(join(dir, 'format-3.ndjson.gz'), records))).toMatchObject({
      code: 1,
      stderr: ['vacaciones: the bundle does not hold: the bundle is of format version 3; this service reads versions 1 to 2'],
    });
  }, 300_000);

  it('replays each stream in the order of its revisions, also where the log places a later revision first', async () => {
    // Two appends that claim a stream one after the other can hold transaction ids in the other
    // order (an id is drawn before the stream's lock is had), which the log's positions follow:
    // here revision 2 of the worker's stream placed right after its revision 0, before revision 1.
    await cli.inspect((db) =>
      db.query(
        `UPDATE events SET tx_id = (SELECT tx_id FROM events WHERE stream = 'worker-1' AND revision = 0)
          WHERE stream = 'worker-1' AND revision = 2`,
      ),
    );
    const live = await cli.run('replay', '--documento', '1001', '--json');
    expect(live).toMatchObject({ code: 0, stderr: [] });
    const steps = JSON.parse(live.stdout.join('\n')) as { stream: string; revision: number; stateAfter: { liveRecords: number } }[];
    expect(steps.map((s) => [s.stream, s.revision, s.stateAfter.liveRecords])).toEqual([
      ['worker-1', 0, 1],
      ['audit-worker-1', 0, 1],
      ['worker-1', 1, 1],
      ['worker-1', 2, 2],
      ['worker-1', 3, 1],
    ]);
    const reordered = join(dir, 'reordered.ndjson.gz');
    expect(await cli.run('audit', 'export', '--documento', '1001', '--out', reordered)).toMatchObject({ code: 0 });
    expect(await offline('audit', 'verify', '--bundle', reordered)).toMatchObject({ code: 0, stderr: [] });
    for (const extra of [[], ['--json']])
      expect(await offline('replay', '--bundle', reordered, '--documento', '1001', ...extra)).toEqual(
        await cli.run('replay', '--documento', '1001', ...extra),
      );
  }, 300_000);

  it('as of a time, export and live replay keep the same prefix of each stream, also where recording times run against revisions', async () => {
    // An event's recording time is when its transaction began: under contention a later revision
    // may carry an earlier time. Here revision 1 is recorded after revision 2.
    await cli.inspect((db) =>
      db.query(
        `UPDATE events SET recorded_at = CASE revision WHEN 0 THEN '2024-03-01T12:00:00Z'::timestamptz WHEN 1 THEN '2024-06-01T12:00:00Z'
                                                        WHEN 2 THEN '2024-04-15T12:00:00Z' ELSE '2024-07-01T12:00:00Z' END
          WHERE stream = 'worker-1'`,
      ),
    );
    const live = await cli.run('replay', '--documento', '1001', '--as-of', '2024-05-01', '--json');
    expect(live).toMatchObject({ code: 0, stderr: [] });
    // The stream up to its last event recorded by then (revision 2), with the revision before it.
    const steps = JSON.parse(live.stdout.join('\n')) as { stream: string; revision: number }[];
    expect(steps.filter((s) => s.stream === 'worker-1').map((s) => s.revision)).toEqual([0, 1, 2]);

    const cut = join(dir, 'as-of-out-of-order.ndjson.gz');
    expect(await cli.run('audit', 'export', '--documento', '1001', '--as-of', '2024-05-01', '--out', cut)).toMatchObject({
      code: 0,
      stdout: [expect.stringMatching(/^exported 6 events in 4 streams/)],
    });
    expect(await offline('audit', 'verify', '--bundle', cut)).toMatchObject({ code: 0, stderr: [] });
    expect(await offline('replay', '--bundle', cut, '--documento', '1001', '--json')).toEqual(live);
    // A whole bundle replayed as of the same time tells the same.
    const whole = join(dir, 'whole-out-of-order.ndjson.gz');
    expect(await cli.run('audit', 'export', '--documento', '1001', '--out', whole)).toMatchObject({ code: 0 });
    expect(await offline('replay', '--bundle', whole, '--documento', '1001', '--as-of', '2024-05-01', '--json')).toEqual(live);
  }, 300_000);

  it('fails a file that is not a whole bundle, or whose streams are out of order, with one line and exit 1', async () => {
    const bytes = readFileSync(bundle);
    const records = gunzipSync(bytes).toString('utf8').trim().split('\n');
    const stream = (line: string) => (JSON.parse(line) as { stream?: string }).stream;
    const block = (name: string) => records.filter((l) => stream(l) === name);
    const others = records.filter((l) => !['audit-worker-1', 'pila-VAC_A_1'].includes(stream(l) ?? ''));
    const cases: [string, Buffer, string][] = [
      ['empty.gz', Buffer.alloc(0), 'the file ends before its first line: it is empty or cut short'],
      ['nothing.gz', gzipSync(''), 'the bundle holds no records: it is empty'],
      ['plain.ndjson', Buffer.from(records.join('\n') + '\n'), 'the file is not gzip: it is not an audit bundle'],
      ['headless.gz', gzipSync(records.slice(1).join('\n') + '\n'), 'line 1 is not the manifest of an audit bundle'],
      ['endless.gz', gzipSync(records.slice(0, -1).join('\n') + '\n'), 'the bundle ends without its end record: it was cut short'],
      ['half.gz', bytes.subarray(0, Math.floor(bytes.length / 2)), 'the bundle cannot be read after line '],
      [
        'swapped.gz',
        gzipSync([...others.slice(0, 2), ...block('pila-VAC_A_1'), ...block('audit-worker-1'), ...others.slice(2)].join('\n') + '\n'),
        'line 5: stream audit-worker-1 comes after pila-VAC_A_1, out of order or twice',
      ],
    ];
    for (const [name, content, reason] of cases) {
      const file = join(dir, name);
      writeFileSync(file, content);
      const r = await offline('audit', 'verify', '--bundle', file);
      expect(r.code, name).toBe(1);
      expect(r.stderr, name).toEqual([expect.stringContaining(`vacaciones: the bundle does not hold: ${reason}`)]);
      expect(r.stdout, name).toContainEqual(expect.stringContaining(`PROBLEM ${reason}`));
    }
    // A worker's stream whose events do not come together is not replayed.
    const parsed = records.map((l) => JSON.parse(l) as Rec);
    const newest = parsed.findLastIndex((r) => r.record === 'event' && r.stream === 'worker-1');
    const [moved] = parsed.splice(newest, 1);
    parsed.splice(2, 0, moved!);
    const split = writeBundle(join(dir, 'split.gz'), parsed, 'whole');
    expect(await offline('replay', '--bundle', split, '--documento', '1001')).toMatchObject({
      code: 1,
      stderr: [
        `vacaciones: the bundle does not hold: the events of stream worker-1 do not come together: run audit verify --bundle ${split}`,
      ],
    });
  }, 300_000);

  it('refuses what it cannot do in one line, and leaves no file behind', async () => {
    const out = join(dir, 'none.ndjson.gz');
    expect(await cli.run('audit', 'export', '--out', out)).toMatchObject({
      code: 1,
      stderr: ['vacaciones: choose one of --documento, --subgerencia and --all'],
    });
    expect(await cli.run('audit', 'export', '--documento', '999', '--out', out)).toMatchObject({
      code: 1,
      stderr: ['vacaciones: no worker with document 999'],
    });
    expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
    expect(await offline('audit', 'verify', '--bundle', out)).toMatchObject({ code: 1, stderr: [`vacaciones: no such file: ${out}`] });
    expect(await offline('audit', 'verify', '--bundle', bundle, '--all')).toMatchObject({
      code: 1,
      stderr: ['vacaciones: --bundle checks the bundle alone: it takes no --documento, --stream, --all or --anchor'],
    });
    expect(await offline('replay', '--bundle', bundle, '--documento', '999')).toMatchObject({
      code: 1,
      stderr: ['vacaciones: no worker with document 999'],
    });
  }, 300_000);
});
