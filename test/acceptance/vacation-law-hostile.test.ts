import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W, addVacation, call, client, expectVacationError, vacationForm, type Answer, type Client } from '../support/http.ts';
import { LONG, lawData } from '../support/law-data.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Hostile input on the vacation-law endpoints over HTTP: dates out of range or not dates, missing
 * and repeated parameters, unknown workers. Each gets a 4xx in the vacation envelope naming the
 * field, never a 500, and changes nothing.
 */

let srv: TestServer;
let c: Client;
let events: () => Promise<number>;

beforeAll(async () => {
  srv = await startTestServer({ beforeStart: async (env) => void (await importThroughCli(env, lawData())) });
  c = client(srv.url, srv.keys.acceptance!);
  // Every record and audit entry the server wrote, as the audit trail of the workers used here shows it.
  events = async () => {
    let n = 0;
    for (const doc of [W.maria, LONG.document]) {
      n += (await c.get('/api/vacaciones/auditoria', { numeroDocumento: doc, emailResponsable: ADMIN })).body.auditoria.length;
    }
    return n;
  };
});
afterAll(async () => {
  await srv?.stop();
});

const RANGE = (field: string) => `${field} debe ser una fecha entre 1900-01-01 y 2999-12-31`;
const FORMAT = (field: string) => `${field} debe ser una fecha válida con formato YYYY-MM-DD`;
const REPEATED = (field: string) => `El campo ${field} viene repetido, no es un valor simple o tiene caracteres no permitidos`;

/** A GET with the query written as given, so that a name may come twice. */
const rawGet = (path: string, query: string) => call(srv.url, `${path}?${query}`, { key: srv.keys.acceptance! });
const q = (pairs: [string, string][]) => new URLSearchParams(pairs).toString();

/** A 400 in the vacation envelope with these field errors. */
function refused(a: Answer, errors: Record<string, string>) {
  expect(expectVacationError(a, 400, 'Datos requeridos faltantes')).toEqual(errors);
}

describe('hostile dates and parameters on the vacation-law endpoints', () => {
  const OUT_OF_RANGE = ['0000-01-01', '1899-12-31', '3000-01-01', '9999-12-31'];
  const NOT_DATES = ['2026-02-30', '2026-13-01', '20261130', 'mañana', '2026-11-30T00:00:00Z', '+275760-09-13'];

  it('GET /api/vacaciones/liquidacion: a leaving date out of range, not a date, missing or repeated is a 400 naming fechaRetiro', async () => {
    const before = await events();
    const settle = (fechaRetiro: string) =>
      c.get('/api/vacaciones/liquidacion', { numeroDocumento: LONG.document, fechaRetiro, emailResponsable: ADMIN });
    for (const d of OUT_OF_RANGE) refused(await settle(d), { fechaRetiro: RANGE('fechaRetiro') });
    for (const d of NOT_DATES) refused(await settle(d), { fechaRetiro: FORMAT('fechaRetiro') });
    refused(await c.get('/api/vacaciones/liquidacion', { numeroDocumento: LONG.document, emailResponsable: ADMIN }), {
      fechaRetiro: 'El campo fechaRetiro es requerido',
    });
    const twice = q([
      ['numeroDocumento', LONG.document],
      ['fechaRetiro', '2026-11-30'],
      ['fechaRetiro', '2026-12-31'],
      ['emailResponsable', ADMIN],
    ]);
    refused(await rawGet('/api/vacaciones/liquidacion', twice), { fechaRetiro: REPEATED('fechaRetiro') });
    const unknown = await c.get('/api/vacaciones/liquidacion', {
      numeroDocumento: '000',
      fechaRetiro: '2026-11-30',
      emailResponsable: ADMIN,
    });
    expect(expectVacationError(unknown, 404, 'Trabajador no encontrado.')).toEqual({
      numeroDocumento: 'No existe un trabajador con documento 000',
    });
    // The ends of the range are dates like any other.
    for (const d of ['1900-01-01', '2999-12-31']) {
      expect(expectVacationError(await settle(d), 422, 'No se puede calcular la liquidación de vacaciones')).toEqual([
        `El trabajador no tiene un contrato vigente en la fecha de retiro ${d}`,
      ]);
    }
    expect(await events()).toBe(before);
  });

  it('GET /api/vacaciones/libro: every date out of range or not a date is a 400 naming it; the ends of the range answer', async () => {
    const book = (query: Record<string, string>) =>
      c.get('/api/vacaciones/libro', { emailResponsable: ADMIN, numeroDocumento: W.maria, ...query });
    for (const field of ['fechaCorte', 'fechaDesde', 'fechaHasta']) {
      for (const d of OUT_OF_RANGE) refused(await book({ [field]: d }), { [field]: RANGE(field) });
      for (const d of NOT_DATES) refused(await book({ [field]: d }), { [field]: FORMAT(field) });
      refused(
        await rawGet(
          '/api/vacaciones/libro',
          q([
            ['emailResponsable', ADMIN],
            [field, '2026-01-01'],
            [field, '2026-02-01'],
          ]),
        ),
        {
          [field]: REPEATED(field),
        },
      );
    }
    for (const fechaCorte of ['1900-01-01', '2999-12-31']) {
      const r = await book({ fechaCorte });
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.fechaCorte).toBe(fechaCorte);
    }
    const all = await c.get('/api/vacaciones/libro', { emailResponsable: ADMIN, fechaCorte: '2999-12-31', formato: 'csv' });
    expect(all.status, all.text).toBe(200);
    refused(
      await rawGet(
        '/api/vacaciones/libro',
        q([
          ['emailResponsable', ADMIN],
          ['formato', 'json'],
          ['formato', 'csv'],
        ]),
      ),
      {
        formato: REPEATED('formato'),
      },
    );
    refused(await c.get('/api/vacaciones/libro', {}), { emailResponsable: 'El campo emailResponsable es requerido' });
    expect(expectVacationError(await book({ numeroDocumento: '000' }), 404, 'Trabajador no encontrado.')).toEqual({
      numeroDocumento: 'No existe un trabajador con documento 000',
    });
  });

  it('GET /api/vacaciones/periodos: missing, repeated, over-long or unknown document and administrator are refused', async () => {
    refused(await c.get('/api/vacaciones/periodos', {}), {
      numeroDocumento: 'El campo numeroDocumento es requerido',
      emailResponsable: 'El campo emailResponsable es requerido',
    });
    refused(
      await rawGet(
        '/api/vacaciones/periodos',
        q([
          ['numeroDocumento', W.maria],
          ['numeroDocumento', LONG.document],
          ['emailResponsable', ADMIN],
        ]),
      ),
      { numeroDocumento: REPEATED('numeroDocumento') },
    );
    refused(await c.get('/api/vacaciones/periodos', { numeroDocumento: '9'.repeat(41), emailResponsable: ADMIN }), {
      numeroDocumento: 'El campo numeroDocumento no es válido',
    });
    expect(
      expectVacationError(
        await c.get('/api/vacaciones/periodos', { numeroDocumento: "' OR '1'='1", emailResponsable: ADMIN }),
        404,
        'Trabajador no encontrado.',
      ),
    ).toEqual({
      numeroDocumento: "No existe un trabajador con documento ' OR '1'='1",
    });
    const nobody = await c.get('/api/vacaciones/periodos', { numeroDocumento: W.maria, emailResponsable: 'nadie@empresa.co' });
    expect(expectVacationError(nobody, 404, 'Usuario responsable no encontrado')).toEqual({
      emailResponsable: 'No existe un usuario administrador con ese correo',
    });
  });

  it('POST /api/vacaciones/interrupt: a date out of range or not a date is a 400 naming fechaInterrupcion, and nothing is interrupted', async () => {
    const added = await addVacation(c, vacationForm(W.maria, '2026-11-17', 6));
    await c.post('/api/vacaciones/approve', { codigoPila: added.codigo_pila, emailUserResponsable: ADMIN });
    const before = await events();
    const interrupt = (fechaInterrupcion: string) =>
      c.post('/api/vacaciones/interrupt', {
        codigoPila: added.codigo_pila,
        fechaInterrupcion,
        motivo: 'otro',
        emailUserResponsable: ADMIN,
      });
    for (const d of OUT_OF_RANGE) refused(await interrupt(d), { fechaInterrupcion: RANGE('fechaInterrupcion') });
    for (const d of NOT_DATES) refused(await interrupt(d), { fechaInterrupcion: FORMAT('fechaInterrupcion') });
    const twice = await call(srv.url, '/api/vacaciones/interrupt', {
      key: srv.keys.acceptance!,
      method: 'POST',
      raw: {
        body: q([
          ['codigoPila', added.codigo_pila],
          ['fechaInterrupcion', '2026-11-18'],
          ['fechaInterrupcion', '2026-11-19'],
          ['motivo', 'otro'],
          ['emailUserResponsable', ADMIN],
        ]),
        contentType: 'application/x-www-form-urlencoded',
      },
    });
    refused(twice, { fechaInterrupcion: REPEATED('fechaInterrupcion') });
    expect(await events()).toBe(before);
    const record = await c.get(`/api/vacaciones/registro/${added.codigo_pila}`, { emailResponsable: ADMIN });
    expect(record.body.vacacion).toMatchObject({ interruptedOn: null, businessDays: 6 });
  });
});
