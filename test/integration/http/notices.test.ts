import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { addOk, editOk } from '../../../src/http/response-schemas.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, client, vacationForm, type Client } from '../../support/http.ts';
import { loadFixture } from '../../support/server.ts';

const TODAY = '2026-11-30';
const art187 = (start: string) => ({
  codigo: 'art187Preaviso',
  mensaje: `El inicio (${start}) está a menos de 15 días de hoy (${TODAY}): el CST art. 187 pide avisar con 15 días de anticipación`,
});

describe.skipIf(!hasServer())(`the notice of CST art. 187 on a booking${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let service: Service;
  let c: Client;

  beforeAll(async () => {
    t = await freshDb();
    const d = loadFixture();
    for (const k of d.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
    await importReferenceData(t.db, d);
    const key = (await createApiKey(t.db, { name: 'nomina' })).key;
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: TODAY, LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config));
    c = client(await service.app.listen({ port: 0, host: '127.0.0.1' }), key);
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
  });

  it('books a start fewer than 15 days ahead with the warning in avisos, the fields of the interface as they are', async () => {
    const r = await c.post('/api/vacaciones/add', vacationForm(W.maria, '2026-12-07', 6));
    expect(r.status, r.text).toBe(201);
    expect(addOk.parse(r.body).data.avisos).toEqual([art187('2026-12-07')]);
    expect(r.body.message).toBe('Vacaciones registradas correctamente');
    // Booked: the record is there.
    const read = await c.get(`/api/vacaciones/registro/${r.body.data.codigo_pila}`, { emailResponsable: ADMIN });
    expect(read.status, read.text).toBe(200);
  });

  it('carries no avisos field for a start 15 or more days ahead', async () => {
    const r = await c.post('/api/vacaciones/add', vacationForm(W.juan, '2026-12-15', 6));
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).not.toHaveProperty('avisos');
  });

  it('warns on an edit that moves the start within 15 days, and not on one that moves it away', async () => {
    const booked = await c.post('/api/vacaciones/add', vacationForm(W.camilo, '2027-01-12', 6));
    expect(booked.status, booked.text).toBe(201);
    const near = await c.post('/api/vacaciones/edit', {
      codigoPila: booked.body.data.codigo_pila,
      ...vacationForm(W.camilo, '2026-12-10', 6),
    });
    expect(near.status, near.text).toBe(200);
    expect(editOk.parse(near.body).data.avisos).toEqual([art187('2026-12-10')]);
    const far = await c.post('/api/vacaciones/edit', {
      codigoPila: near.body.data.codigoPilaNuevo,
      ...vacationForm(W.camilo, '2026-12-21', 6),
    });
    expect(far.status, far.text).toBe(200);
    expect(far.body.data).not.toHaveProperty('avisos');
  });

  it('leaves calculate, a preview that books nothing, as the interface defines it', async () => {
    const r = await c.post('/api/vacaciones/calculate', vacationForm(W.maria, '2027-01-12', 6));
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).not.toHaveProperty('avisos');
  });
});
