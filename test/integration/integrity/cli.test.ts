import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { cliTarget, type CliTarget } from '../reference/helpers.ts';

const ev = (i: number) => ({
  id: randomUUID(),
  type: 'VacationApproved',
  data: { codigoPila: `P${i}`, workerId: 1, approvedByUserId: 7 },
  metadata: {},
});

describe('vacaciones audit verify and anchor', () => {
  let cli: CliTarget;
  beforeAll(async () => {
    cli = await cliTarget();
  });
  afterAll(async () => {
    await cli?.dispose();
  });

  it('verifies, anchors, and fails with the first broken link named', async () => {
    const empty = await cli.run('audit', 'verify');
    expect(empty).toMatchObject({ code: 0, stderr: [] });
    expect(empty.stdout).toEqual([expect.stringMatching(/^verified every stream: 0 events in 0 streams in [\d.]+ s: every chain holds$/)]);

    await cli.inspect(async (db) => {
      await db.query(
        `INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names) VALUES (1, 'CC', '1001', 'Ana', 'Pérez')`,
      );
      const store = new PostgresEventStore(db);
      for (let i = 0; i < 3; i++) {
        await store.append([
          { stream: 'worker-1', expectedRevision: 'any', events: [ev(i)] },
          { stream: `pila-P${i}`, expectedRevision: 'no_stream', events: [ev(i)] },
          { stream: 'worker-2', expectedRevision: 'any', events: [ev(i)] },
        ]);
      }
    });
    const anchored = await cli.run('audit', 'anchor');
    expect(anchored).toMatchObject({ code: 0, stderr: [] });
    expect(anchored.stdout).toEqual([expect.stringMatching(/^anchor [0-9a-f]{64} at \d+\/\d+: 5 streams, 9 events, \d{4}-\d\d-\d\dT/)]);

    const worker = await cli.run('audit', 'verify', '--documento', '1001');
    expect(worker).toMatchObject({ code: 0, stderr: [] });
    // Its vacation stream and the streams of its three codes (it has no audit stream yet).
    expect(worker.stdout).toEqual([
      expect.stringMatching(/^verified worker 1 \(document 1001\): 6 events in 4 streams in .*: every chain holds$/),
    ]);

    await cli.inspect((db) =>
      db.query(`UPDATE events SET data = data || '{"approvedByUserId": 8}' WHERE stream = 'worker-1' AND revision = 1`),
    );
    const broken = await cli.run('audit', 'verify', '--all');
    expect(broken.code).toBe(1);
    expect(broken.stdout[0]).toMatch(
      /^BROKEN stream worker-1 revision 1: the event does not match its hash \(changed, or not in its place\): expected [0-9a-f]{64}, found [0-9a-f]{64}$/,
    );
    expect(broken.stdout.slice(1)).toEqual([
      expect.stringMatching(/^verified every stream: 10 events in 6 streams in .*: 1 broken$/),
      expect.stringMatching(/^anchor [0-9a-f]{64} at \d+\/\d+ \(recorded .*\): holds$/),
    ]);
    expect(broken.stderr).toEqual([`vacaciones: hash chain broken: ${broken.stdout[0]!.slice('BROKEN '.length)}`]);

    // The kept line still holds: the heads are untouched.
    const kept = await cli.run('audit', 'verify', '--anchor', anchored.stdout[0]!);
    expect(kept).toMatchObject({ code: 0, stdout: [expect.stringMatching(/: holds$/)] });
    // Seven runs of the CLI, each opening the database: on PGlite, seconds each.
  }, 600_000);

  it('refuses what it cannot do in one line', async () => {
    expect(await cli.run('audit', 'verify', '--documento', '999', '--stream', 'x')).toMatchObject({
      code: 1,
      stderr: ['vacaciones: choose one of --documento, --stream and --all'],
    });
    expect(await cli.run('audit', 'verify', '--documento', '999')).toMatchObject({
      code: 1,
      stderr: ['vacaciones: no worker with document 999'],
    });
    expect(await cli.run('audit', 'verify', '--anchor', 'nothing')).toMatchObject({
      code: 1,
      stderr: ['vacaciones: --anchor nothing names no root and position (<64 hex digits>@<commit>/<prepare>)'],
    });
  });
});
