import { stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { REFERENCE_TABLES, ImportValidationError, importReferenceSource, type ImportProgress } from '../../reference/import.ts';
import { SourceSyntaxError, fileSource } from '../../reference/sources.ts';
import { historicImportOptions } from '../../reference/historic-events.ts';
import { todayInBogota } from '../../domain/index.ts';
import { holidayCalendar } from '../../config/holidays.ts';
import { openEventStore } from '../../store/open.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { phaseBar } from '../progress.ts';

/**
 * Historic vacations from which a running service would spend seconds catching its read models
 * up one batch after another (60,000 of them took 29 s, a rebuild 10 s): the import then says how
 * to build them in bulk. A service that starts far behind the log rebuilds them itself
 * (projections/runtime/bulk-start.ts).
 */
const BULK_HINT_VACATIONS = 10_000;
const UNITS: Record<ImportProgress['phase'], string> = { checking: 'steps', writing: 'tables', historic: 'vacations' };

export function registerImport(program: Command, io: CliIo): void {
  program
    .command('import')
    .description('validate a reference data file (JSON, or NDJSON when named .ndjson or .jsonl) and load it in one transaction')
    .argument('<file>', 'reference data file; see src/reference/reference-data.schema.json')
    .action(async (file: string) => {
      let size: number;
      try {
        const s = await stat(file);
        if (!s.isFile()) throw new Error('not a file');
        size = s.size;
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      // Quiet unless standard error is a terminal: then one bar per phase.
      const bar = phaseBar(io);
      const megabytes = (n: number) => Math.round(n / 2 ** 20);
      const source = fileSource(file, bar.drawn ? (bytes) => bar.update('reading', megabytes(bytes), megabytes(size), 'MB') : undefined);
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        let report;
        try {
          report = await importReferenceSource(db, source, {
            ...historicImportOptions(store, holidayCalendar(config), () => config.today ?? todayInBogota(new Date())),
            onProgress: (p) => bar.update(p.phase, p.done, p.total, UNITS[p.phase]),
          });
        } catch (err) {
          bar.stop();
          if (err instanceof SourceSyntaxError) {
            throw new CliError(`${file} is not valid JSON: ${err.message}`);
          }
          if (!(err instanceof ImportValidationError)) throw err;
          // The one-line CliError only summarises; the lines that say what to fix go first.
          for (const p of err.problems) io.err(p);
          const n = err.problems.length;
          throw new CliError(`import rejected: ${n} problem${n === 1 ? '' : 's'} in ${file}`);
        } finally {
          bar.stop();
          await store.close();
        }
        for (const w of report.warnings) io.err(`warning: ${w}`);
        for (const t of REFERENCE_TABLES) {
          const c = report.tables[t];
          io.out(`${t.padEnd(17)} inserted ${c.inserted}, updated ${c.updated}, unchanged ${c.unchanged}`);
        }
        io.out(`historic vacations: imported ${report.historic.imported}, skipped ${report.historic.skipped}`);
        if (report.historic.imported >= BULK_HINT_VACATIONS) {
          io.err(
            `note: a running service takes in the events of ${report.historic.imported} historic vacations one batch ` +
              'after another; npm run cli -- projections rebuild builds the read models in bulk, faster ' +
              '(a service that starts far behind the log rebuilds them itself)',
          );
        }
        io.out(
          report.changed
            ? `imported ${file}: reference data is now version ${report.version}`
            : `imported ${file}: nothing changed (version ${report.version})`,
        );
      });
    });
}
