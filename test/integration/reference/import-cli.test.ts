import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeScaleFile } from '../../support/scale-dataset.ts';
import { FIXTURE, cliTarget, loadFixture, tableCounts, type CliTarget } from './helpers.ts';

let cli: CliTarget;
let dir: string;
beforeAll(async () => {
  cli = await cliTarget();
  dir = mkdtempSync(join(tmpdir(), 'vac-import-'));
});
afterAll(async () => {
  await cli?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('vacaciones import', () => {
  it('rejects a bad file with one line per problem and a one-line reason, writing nothing', async () => {
    const f = loadFixture();
    f.contratos[3].fechaFin = '2026-02-30';
    f.nomina[0].contratoId = 424242;
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(f));
    const r = await cli.run('import', file);
    expect(r.code).toBe(1);
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toEqual([
      'contratos[3].fechaFin: not a real date (2026-02-30)',
      'nomina[0].contratoId: contrato 424242 does not exist (neither in this file nor in the database)',
      `vacaciones: import rejected: 2 problems in ${file}`,
    ]);
    const counts = await cli.inspect((db) => tableCounts(db));
    expect(counts.ref_workers + counts.ref_payroll_sheets + counts.version).toBe(0);
  });

  it('names the file and the JSON error when the file is not JSON', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"asociados": [');
    const r = await cli.run('import', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(new RegExp(`^vacaciones: ${file} is not valid JSON: `));
  });

  it('says so when the file cannot be read', async () => {
    const r = await cli.run('import', join(dir, 'missing.json'));
    expect(r.code).toBe(1);
    expect(r.stderr).toHaveLength(1);
    expect(r.stderr[0]).toMatch(/^vacaciones: cannot read .*missing\.json: ENOENT/);
  });

  it('imports the fixture, then finds nothing to change the second time', async () => {
    const first = await cli.run('import', FIXTURE);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('payrollSheets     inserted 576, updated 0, unchanged 0');
    expect(first.stdout.at(-1)).toBe(`imported ${FIXTURE}: reference data is now version 1`);
    expect(first.stdout).toContain('historic vacations: imported 2, skipped 0');
    expect(first.stderr).toEqual([]);
    const again = await cli.run('import', FIXTURE);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('payrollSheets     inserted 0, updated 0, unchanged 576');
    expect(again.stdout).toContain('historic vacations: imported 0, skipped 2');
    expect(again.stdout.at(-1)).toBe(`imported ${FIXTURE}: nothing changed (version 1)`);
    expect((await cli.inspect((db) => tableCounts(db))).ref_payroll_sheets).toBe(576);
    const events = await cli.inspect((db) =>
      db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'VacationImported'`),
    );
    expect(Number(events.rows[0]!.n)).toBe(2);
  });

  it('after many historic vacations, says on standard error how to build the read models in bulk', async () => {
    const file = join(dir, 'company.json');
    await writeScaleFile(file, 'json', { workers: 2_000, sheets: 2, firstWorkerId: 100_000 });
    const r = await cli.run('import', file);
    expect(r.code, r.stderr.join('\n')).toBe(0);
    expect(r.stdout).toContain('historic vacations: imported 10000, skipped 0');
    expect(r.stderr).toEqual([
      'note: a running service takes in the events of 10000 historic vacations one batch after another; npm run cli -- projections rebuild builds the read models in bulk, faster (a service that starts far behind the log rebuilds them itself)',
    ]);
  });
});
