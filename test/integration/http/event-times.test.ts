import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, client, vacationForm, type Client } from '../../support/http.ts';
import { loadFixture } from '../../support/server.ts';

/** `YYYY-MM-DD HH:MM:SS` in Bogotá (UTC-5 all year) of an ISO time. */
const bogota = (iso: string) => new Date(Date.parse(iso) - 5 * 3600_000).toISOString().replace('T', ' ').slice(0, 19);

describe.skipIf(!hasServer())(`times in the answers of delete and approve${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let service: Service;
  let c: Client;
  // A clock that moves a whole second at every read: any second read of it shows in an answer.
  let tick = Date.parse('2026-11-21T15:00:00.000Z');
  const now = () => new Date((tick += 1000));

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    const key = (await createApiKey(t.db, { name: 'times' })).key;
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config), { now });
    c = client(await service.app.listen({ port: 0, host: '127.0.0.1' }), key);
  });
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
  });

  const recordOf = async (code: string) => {
    const r = await c.get(`/api/vacaciones/registro/${code}`, { emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    return r.body.vacacion as { deletedAt: string | null; approvedAt: string | null };
  };
  const add = async (start: string) => {
    const r = await c.post('/api/vacaciones/add', vacationForm(W.juan, start, 6));
    expect(r.status, r.text).toBe(201);
    return r.body.data.codigo_pila as string;
  };

  it('fechaEliminacion is the time the deletion event holds', async () => {
    const code = await add('2026-03-02');
    const r = await c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    const { deletedAt } = await recordOf(code);
    expect(deletedAt).not.toBeNull();
    expect(r.body.data.fechaEliminacion).toBe(bogota(deletedAt!));
  });

  it('fechaAprobacion is the time the approval event holds', async () => {
    const code = await add('2026-04-06');
    const r = await c.post('/api/vacaciones/approve', { codigoPila: code, emailUserResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    const { approvedAt } = await recordOf(code);
    expect(approvedAt).not.toBeNull();
    expect(r.body.data.fechaAprobacion).toBe(bogota(approvedAt!));
  });
});
