import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holidayCalendar } from '../../../src/config/holidays.ts';
import { historicImportOptions } from '../../../src/reference/historic-events.ts';
import { importReferenceSource } from '../../../src/reference/import.ts';
import { fileSource } from '../../../src/reference/sources.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, hasServer } from '../../support/db.ts';
import { writeScaleFile } from '../../support/scale-dataset.ts';

/**
 * The import of an employer's file grows with the file: each worker brings 12 payroll sheets and
 * 5 historic vacations (the shape of `bench:scale`, where 50,000 workers are measured), and a file
 * five times larger takes about five times as long. The bound allows twice that and some seconds
 * of noise; work that grows with the square of the rows takes 25 times as long. It measures
 * growth, not speed (the figures are in docs/benchmarks.md). 1,000 against 5,000 workers rather
 * than 10,000 against 50,000, which would add two minutes to the suite: `bench:scale` imports
 * 50,000 in each format.
 */
const SMALL = 1_000;
const LARGE = 5_000;
const SHAPE = { sheets: 12, vacations: 5, subgerencias: 20 };
const calendar = holidayCalendar({ holidaysFile: undefined });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vac-import-growth-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The whole import of a generated file into a fresh database: its time, and what it wrote. */
async function importOf(workers: number, format: 'json' | 'ndjson'): Promise<{ ms: number; events: number; sheets: number }> {
  const path = join(dir, `${workers}.${format}`);
  await writeScaleFile(path, format, { workers, ...SHAPE });
  const t = await freshDb();
  try {
    const options = historicImportOptions(new PostgresEventStore(t.db), calendar, () => '2026-11-21');
    const started = performance.now();
    const report = await importReferenceSource(t.db, fileSource(path), options);
    const ms = performance.now() - started;
    const events = await t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'VacationImported'`);
    return { ms, events: Number(events.rows[0]!.n), sheets: report.tables.payrollSheets.inserted };
  } finally {
    await t.drop();
  }
}

// On PGlite, one connection in this process, the large import alone takes minutes.
describe.skipIf(!hasServer())('the import of a large employer', () => {
  for (const format of ['json', 'ndjson'] as const) {
    it(`of ${format.toUpperCase()} grows with the file, not with its square: ${LARGE} workers against ${SMALL}`, async () => {
      const small = await importOf(SMALL, format);
      const large = await importOf(LARGE, format);
      expect(small).toMatchObject({ events: SMALL * SHAPE.vacations, sheets: SMALL * SHAPE.sheets });
      expect(large).toMatchObject({ events: LARGE * SHAPE.vacations, sheets: LARGE * SHAPE.sheets });
      expect(large.ms).toBeLessThan(2 * (LARGE / SMALL) * small.ms + 5_000);
    }, 300_000);
  }
});
