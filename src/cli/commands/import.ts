import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { REFERENCE_TABLES, ImportValidationError, importReferenceData } from '../../reference/import.ts';
import { historicImportOptions } from '../../commands/import-historic.ts';
import { holidayCalendar } from '../../config/holidays.ts';
import { openEventStore } from '../../store/open.ts';
import { CliError, withDb, type CliIo } from '../context.ts';

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

export function registerImport(program: Command, io: CliIo): void {
  program
    .command('import')
    .description('validate a reference data file (JSON) and load it in one transaction')
    .argument('<file>', 'reference data file; see src/reference/reference-data.schema.json')
    .action(async (file: string) => {
      const input = await readJson(file);
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        let report;
        try {
          report = await importReferenceData(db, input, historicImportOptions(store, holidayCalendar(config)));
        } catch (err) {
          if (!(err instanceof ImportValidationError)) throw err;
          // The one-line CliError only summarises; the lines that say what to fix go first.
          for (const p of err.problems) io.err(p);
          const n = err.problems.length;
          throw new CliError(`import rejected: ${n} problem${n === 1 ? '' : 's'} in ${file}`);
        } finally {
          await store.close();
        }
        for (const w of report.warnings) io.err(`warning: ${w}`);
        for (const t of REFERENCE_TABLES) {
          const c = report.tables[t];
          io.out(`${t.padEnd(17)} inserted ${c.inserted}, updated ${c.updated}, unchanged ${c.unchanged}`);
        }
        io.out(`historic vacations: imported ${report.historic.imported}, skipped ${report.historic.skipped}`);
        io.out(
          report.changed
            ? `imported ${file}: reference data is now version ${report.version}`
            : `imported ${file}: nothing changed (version ${report.version})`,
        );
      });
    });
}
