import { PassThrough, Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type ExcelJS from 'exceljs';
import type { BookWorker } from '../projections/reports/book.ts';
import { BOOK_COLUMNS, type Cell } from './book-columns.ts';
import { formulaSafe } from './csv-cell.ts';
import { csvCell, xlsxCell, XLSX_FORMATS, type PeopleLayout } from './people-formats.ts';
import { flagText } from './fields.ts';
import { periodBody } from './period-body.ts';
import { registerWire } from './record-wire.ts';

/**
 * The vacation register written out as it is read: JSON (the vacation envelope, its array of
 * workers streamed), CSV and XLSX (one table, one line per worker, period and vacation). Each
 * writer pulls the next worker only once what came before has been taken by the connection, so a
 * company of any size goes out in the memory of one page of workers.
 */

/** Who the worker is and since when: the head of their entry, and of each of their table lines. */
function whoOf(w: BookWorker) {
  const { worker } = w.file;
  return {
    asociadoId: worker.id,
    tipoDocumento: worker.documentType,
    numeroDocumento: worker.documentNumber,
    nombres: worker.firstNames,
    apellidos: worker.lastNames,
    fechaIngreso: w.hireDate,
  };
}

export function bookWorkerBody(w: BookWorker) {
  return {
    ...whoOf(w),
    periodos: w.periods.map(periodBody),
    vacaciones: w.vacations.map((r) => registerWire(r, w.settledRecords.has(r.codigoPila))),
    totales: {
      diasCausados: w.totals.accrued,
      diasDisfrutados: w.totals.enjoyed,
      diasCompensados: w.totals.compensated,
      diasPendientes: w.totals.pending,
    },
  };
}

/** The JSON answer: the envelope around `head`, whose `trabajadores` array is written as the workers come. */
export function jsonBook(head: Record<string, unknown>, workers: AsyncIterable<BookWorker>): Readable {
  async function* chunks() {
    const open = JSON.stringify({ success: true, statusCode: 200, message: 'Libro de vacaciones', data: { ...head, trabajadores: [] } });
    // The envelope closes with `]}}`: the workers go just before it.
    yield open.slice(0, -3);
    let n = 0;
    for await (const w of workers) {
      yield (n++ === 0 ? '' : ',') + JSON.stringify(bookWorkerBody(w));
    }
    yield `],"totalTrabajadores":${n}}}`;
  }
  return Readable.from(chunks(), { objectMode: false });
}

export type { Cell } from './book-columns.ts';
export { BOOK_COLUMNS } from './book-columns.ts';

type Line = Partial<Record<(typeof BOOK_COLUMNS)[number], Cell>>;

/**
 * A worker's lines of the table: one `trabajador` line (hire date and totals), one `periodo` line
 * per period and one `vacaciones` line per vacation, each repeating who the worker is.
 */
export function bookLines(w: BookWorker): Cell[][] {
  const who: Line = whoOf(w);
  const lines: Line[] = [
    {
      registro: 'trabajador',
      ...who,
      diasCausados: w.totals.accrued,
      diasDisfrutados: w.totals.enjoyed,
      diasCompensados: w.totals.compensated,
      diasPendientes: w.totals.pending,
    },
  ];
  // The JSON bodies under the table's names: what is not a column is left out below.
  for (const p of w.periods) {
    const { vacaciones: _shown, prescrito, art190SeisDias, numero, desde, contratoLiquidado, ...rest } = periodBody(p);
    lines.push({
      registro: 'periodo',
      ...who,
      ...rest,
      periodo: numero,
      periodoDesde: desde,
      prescrito: flagText(prescrito),
      art190SeisDias: flagText(art190SeisDias),
      contratoLiquidado: flagText(contratoLiquidado),
    });
  }
  for (const r of w.vacations) {
    const {
      aprobada: _a,
      vacCompensado: _c,
      vacPagado,
      id: _i,
      contratoLiquidado,
      ...rest
    } = registerWire(r, w.settledRecords.has(r.codigoPila));
    lines.push({ registro: 'vacaciones', ...who, ...rest, anticipadas: vacPagado, contratoLiquidado: flagText(contratoLiquidado) });
  }
  return lines.map((l) => BOOK_COLUMNS.map((c) => l[c] ?? null));
}

/**
 * CSV (RFC 4180, comma, header line, UTF-8 with a BOM for spreadsheets), through csv-stringify,
 * which quotes what needs quoting; text a spreadsheet would run as a formula (a worker named
 * `=cmd|...`) is kept as text by formulaSafe. A failure of the reading ends the output unfinished.
 */
export function csvBook(workers: AsyncIterable<BookWorker>, onError: (err: unknown) => void, people?: PeopleLayout): Readable {
  return csvTable(BOOK_COLUMNS, linesOfEach(workers, bookLines), onError, people);
}

/** The lines `linesOf` gives of each item, in order, pulled as they are taken. */
export async function* linesOfEach<T>(items: AsyncIterable<T>, linesOf: (item: T) => Cell[][]): AsyncGenerator<Cell[][]> {
  for await (const item of items) yield linesOf(item);
}

/**
 * A table as CSV (RFC 4180, comma, the header line first, UTF-8 with a BOM for spreadsheets),
 * written as its groups of lines come, every text cell through formulaSafe.
 */
export function csvTable(
  header: readonly string[],
  groups: AsyncIterable<Cell[][]>,
  onError: (err: unknown) => void,
  people?: PeopleLayout,
): Readable {
  const shown = people ? (line: Cell[]) => line.map((c, i) => csvCell(people.columns[i]!.kind, c)) : (line: Cell[]) => line;
  async function* rows() {
    for await (const lines of groups) for (const line of lines) yield shown(line).map((c) => (typeof c === 'string' ? formulaSafe(c) : c));
  }
  // For people, as Excel in Colombia opens it: `;` between fields (the comma is the decimal mark).
  const out = people
    ? stringify({ header: true, columns: people.columns.map((c) => c.label), bom: true, delimiter: ';' })
    : stringify({ header: true, columns: [...header], bom: true });
  pipeline(Readable.from(rows()), out, (err) => {
    if (err) onError(err);
  });
  return out;
}

interface Drains {
  once(event: 'drain', fn: () => void): unknown;
  off(event: 'drain', fn: () => void): unknown;
}

/** Resolves once `stream` may take more, or `out` is gone (the caller stops then). */
function drained(stream: Drains, out: PassThrough): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      out.off('close', done);
      resolve();
    };
    stream.once('drain', done);
    out.once('close', done);
  });
}

/** The part of exceljs's worksheet writer that paces it: the zip entry its rows are piped to. */
interface SheetEntry {
  stream?: { pipes?: (Drains & { _writableState?: { needDrain?: boolean } })[] };
}

/**
 * Resolves once the zip has taken in the rows committed so far. exceljs writes a committed row
 * into the sheet's zip entry without heeding its back-pressure, and deflating is slower than
 * writing rows, so without this wait the whole sheet would pile up uncompressed in memory (a large
 * company's register, wholly; docs/benchmarks.md, memory). Reaches into exceljs 4.4's writer, which is why
 * its version is pinned; test/acceptance/vacation-book-memory.test.ts fails if the wait stops
 * working.
 */
function zipped(sheet: unknown, out: PassThrough): Promise<void> {
  const entry = (sheet as SheetEntry).stream?.pipes?.[0];
  // A reader gone away stops the zip too: the entry would never drain, so the output's close ends the wait.
  return entry?._writableState?.needDrain && !out.destroyed ? drained(entry, out) : Promise.resolve();
}

/** The media types of the files the service writes. */
export const CONTENT_TYPES = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/** The rows an Excel worksheet holds, its header included. */
export const XLSX_MAX_ROWS = 1_048_576;

/**
 * XLSX through exceljs's streaming writer: rows are committed as they come, without shared strings
 * or styles, so that nothing of a committed row stays in memory. The zip goes out through a
 * pass-through whose back-pressure paces the reading of the next worker. A full sheet (Excel's
 * rows, or `rowsPerSheet`) is closed and the register goes on in the next, *Libro de vacaciones
 * (2)* and so on, each with the header.
 */
export function xlsxBook(
  workers: AsyncIterable<BookWorker>,
  onError: (err: unknown) => void,
  rowsPerSheet = XLSX_MAX_ROWS,
  people?: PeopleLayout,
): Readable {
  return xlsxTable('Libro de vacaciones', BOOK_COLUMNS, linesOfEach(workers, bookLines), onError, rowsPerSheet, people);
}

/** A table as XLSX, written as its groups of lines come, in sheets named after `title` (see xlsxBook). */
export function xlsxTable(
  title: string,
  header: readonly string[],
  groups: AsyncIterable<Cell[][]>,
  onError: (err: unknown) => void,
  rowsPerSheet = XLSX_MAX_ROWS,
  people?: PeopleLayout,
): Readable {
  const out = new PassThrough();
  const headerCells = people ? people.columns.map((c) => c.label) : [...header];
  const shown = people ? (line: Cell[]) => line.map((c, i) => xlsxCell(people.columns[i]!.kind, c)) : (line: Cell[]) => line;
  void (async () => {
    try {
      // Loaded on the first XLSX asked for: memory and start-up time that a service never
      // writing a spreadsheet does without.
      const { default: excel } = await import('exceljs');
      // Styles only for people (formats, widths, a bold header): a few shared styles, not one a cell.
      const book = new excel.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: people !== undefined });
      const newSheet = (name: string) => {
        if (!people) return book.addWorksheet(name);
        const last = people.columns.length;
        const ws = book.addWorksheet(name, {
          views: [{ state: 'frozen', ySplit: 1 }],
          autoFilter: { from: { row: 1, column: 1 }, to: { row: 1, column: last } },
        } as Partial<ExcelJS.AddWorksheetOptions>);
        ws.columns = people.columns.map((c) => ({ width: c.width, style: XLSX_FORMATS[c.kind] ? { numFmt: XLSX_FORMATS[c.kind] } : {} }));
        return ws;
      };
      let sheet = newSheet(title);
      let sheets = 1;
      let rows = 0;
      const addHeader = () => {
        const row = sheet.addRow(headerCells);
        if (people) row.font = { bold: true };
        row.commit();
        rows++;
      };
      const addRow = (cells: (Cell | Date)[]) => {
        if (rows === rowsPerSheet) {
          sheet.commit();
          sheet = newSheet(`${title} (${++sheets})`);
          rows = 0;
          addHeader();
        }
        sheet.addRow(cells).commit();
        rows++;
      };
      addHeader();
      for await (const lines of groups) {
        // The caller went away: leaving the loop ends the reading of the table.
        if (out.destroyed) return;
        for (const line of lines) addRow(shown(line));
        await zipped(sheet, out);
        if (out.writableNeedDrain) await drained(out, out);
      }
      sheet.commit();
      await book.commit();
    } catch (err) {
      onError(err);
      out.destroy(err as Error);
    }
  })();
  return out;
}
