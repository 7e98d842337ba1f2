import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W } from '../../support/http.ts';
import { PanelClient, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
let admin: PanelClient;

beforeAll(async () => {
  p = await startPanelService({}, { accounts: [ADMIN] });
  admin = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
  await admin.get(`/panel/trabajador/${W.maria}`);
  const booked = await admin.post(`/panel/trabajador/${W.maria}/vacaciones`, {
    vacFechaInicio: '01/12/2026',
    vacDiasVacaciones: '6',
    accion: 'registrar',
  });
  expect(booked.status).toBe(303);
});
afterAll(async () => {
  await p?.stop();
});

/** The download as bytes, with the signed-in person's cookies. */
async function download(path: string): Promise<Buffer> {
  const cookie = [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const r = await p.service.app.inject({ url: path, headers: { cookie } });
  expect(r.statusCode).toBe(200);
  return r.rawPayload;
}

describe("the worker's register, downloaded from the panel for people", () => {
  it('is an XLSX with Spanish headers, real dates, pesos, widths, a frozen header row and filters', async () => {
    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await download(`/panel/trabajador/${W.maria}/libro.xlsx`)) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).slice(1);
    expect(header).toContain('Fecha de ingreso');
    expect(header).toContain('Días pendientes');
    expect(header).not.toContain('vacFechaInicio');
    expect(sheet.getRow(1).font?.bold).toBe(true);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.autoFilter).toBeTruthy();
    const at = (name: string) => header.indexOf(name) + 1;
    let vacation: ExcelJS.Row | undefined;
    sheet.eachRow((row) => {
      if (row.getCell(at('Línea')).value === 'Vacaciones') vacation = row;
    });
    expect(vacation).toBeDefined();
    const start = vacation!.getCell(at('Inicio'));
    expect(start.value).toBeInstanceOf(Date);
    expect((start.value as Date).toISOString().slice(0, 10)).toBe('2026-12-01');
    expect(start.numFmt).toBe('dd/mm/yyyy');
    const value = vacation!.getCell(at('Valor'));
    expect(typeof value.value).toBe('number');
    expect(value.numFmt).toBe('"$" #,##0');
    expect(vacation!.getCell(at('Estado')).value).toBe('Registrada');
    expect(sheet.getColumn(at('Código PILA')).width).toBeGreaterThanOrEqual(30);
  });

  it('is a CSV in UTF-8 with a BOM, `;` between fields, Spanish headers, day/month/year and a decimal comma', async () => {
    const csv = (await download(`/panel/trabajador/${W.maria}/libro.csv`)).toString('utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    const [head, ...lines] = csv.slice(1).trim().split(/\r?\n/);
    const header = head!.split(';');
    expect(header).toContain('Días causados');
    const vacation = lines.map((l) => l.split(';')).find((cells) => cells[0] === 'Vacaciones')!;
    expect(vacation[header.indexOf('Inicio')]).toBe('01/12/2026');
    const worker = lines.map((l) => l.split(';')).find((cells) => cells[0] === 'Trabajador')!;
    expect(worker[header.indexOf('Días causados')]).toMatch(/^\d+,\d{2}$/);
  });
});

describe("a worker's history (Auditoría), downloaded for people", () => {
  it('is one line per action in Spanish, who and when in Bogotá, the technical detail in the last columns; CSV and XLSX alike', async () => {
    // María's booking is then edited: the edit is one line, not its three events.
    const page = await admin.get(`/panel/trabajador/${W.maria}`);
    const code = /id="(VAC_[0-9a-f_]+)"/.exec(page.body)![1]!;
    await admin.get(`/panel/vacaciones/${code}/editar`);
    const edited = await admin.post(`/panel/vacaciones/${code}/editar`, { vacFechaInicio: '02/12/2026', vacDiasVacaciones: '7' });
    expect(
      edited.status,
      edited.body
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .slice(0, 1500),
    ).toBe(303);

    const csv = (await download(`/panel/auditoria/exportar?documento=${W.maria}&formato=csv`)).toString('utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    const [head, ...lines] = csv.slice(1).trim().split(/\r?\n/);
    const header = head!.split(';');
    expect(header.slice(0, 5)).toEqual(['Paso', 'Fecha y hora (Bogotá)', 'Qué', 'Quién', 'Por dónde']);
    expect(header.at(-1)).toBe('Detalle técnico: datos');
    const cells = (l: string) => l.match(/("([^"]|"")*"|[^;]*)(;|$)/g)!.map((c) => c.replace(/;$/, ''));
    const edit = lines.map(cells).find((l) => l[2]!.startsWith(`Edición de ${code}`))!;
    expect(edit).toBeDefined();
    expect(edit[1]).toMatch(/^\d{1,2} [a-z]{3} \d{4}, \d{2}:\d{2}$/);
    expect(edit[3]).toBe(ADMIN);
    expect(edit[4]).toBe('panel web');
    expect(edit[8]).toContain('VacationEditStarted');
    expect(edit[8]).toContain('VacationCreated');
    // No line of its own for the edit's inner events.
    expect(lines.some((l) => cells(l)[2]!.startsWith('Inicio de edición'))).toBe(false);

    const book = new ExcelJS.Workbook();
    await book.xlsx.load((await download(`/panel/auditoria/exportar?documento=${W.maria}&formato=xlsx`)) as unknown as ArrayBuffer);
    const sheet = book.worksheets[0]!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(header);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.rowCount).toBe(lines.length + 1);
    expect(sheet.getRow(sheet.rowCount).getCell(1).value).toBe(lines.length);
  });
});
