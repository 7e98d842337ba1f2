import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { BOOK_COLUMNS, xlsxBook } from '../../../src/app/book-formats.ts';
import type { BookWorker } from '../../../src/projections/reports/book.ts';
import { entry } from '../projections/builders.ts';
import { EMPTY_PAYROLL } from '../../../src/domain/index.ts';

/** A worker of the register with one vacation and no period: two lines of the table. */
function worker(id: number): BookWorker {
  return {
    file: {
      worker: { id, documentType: 'CC', documentNumber: `D${id}`, firstNames: 'Ana', lastNames: 'Ruiz' },
      contracts: [],
      companyContracts: new Map(),
      payroll: EMPTY_PAYROLL,
    },
    hireDate: '2024-02-01',
    periods: [],
    totals: { accrued: 0, enjoyed: 0, compensated: 0, pending: 0, pendingUnits: 0 },
    vacations: [entry(`VAC_${id}`, '2026-03-02', 6, { workerId: id })],
    settledRecords: new Map(),
  };
}

async function* workers(n: number): AsyncGenerator<BookWorker> {
  for (let i = 1; i <= n; i++) yield worker(i);
}

async function readBack(stream: NodeJS.ReadableStream): Promise<ExcelJS.Workbook> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.concat(chunks) as never);
  return book;
}

describe('the register as XLSX', () => {
  it('given more lines than a sheet holds, when written, then it goes on in a new sheet with the header, nothing lost or repeated', async () => {
    const failures: unknown[] = [];
    const book = await readBack(xlsxBook(workers(3), (err) => failures.push(err), 4));
    expect(failures).toEqual([]);
    expect(book.worksheets.map((s) => s.name)).toEqual(['Libro de vacaciones', 'Libro de vacaciones (2)']);
    const rows = book.worksheets.map((s) =>
      s
        .getSheetValues()
        .filter(Boolean)
        .map((r) => (r as unknown[]).slice(1, 4)),
    );
    const header = BOOK_COLUMNS.slice(0, 3);
    expect(rows).toEqual([
      [header, ['trabajador', 1, 'CC'], ['vacaciones', 1, 'CC'], ['trabajador', 2, 'CC']],
      [header, ['vacaciones', 2, 'CC'], ['trabajador', 3, 'CC'], ['vacaciones', 3, 'CC']],
    ]);
  });
});
