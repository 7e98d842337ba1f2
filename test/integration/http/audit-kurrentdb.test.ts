import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../../src/config/config.ts';
import type { AppDeps } from '../../../src/http/context.ts';
import { buildApp } from '../../../src/http/app.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { ReferenceRepository } from '../../../src/reference/repository.ts';
import { createApiKey, verifyApiKey } from '../../../src/security/api-keys.ts';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import { freshDb, type TestDb } from '../../support/db.ts';
import { FakeKurrentClient, FakeKurrentLog } from '../../support/fake-kurrent.ts';
import { ADMIN, W } from '../../support/http.ts';
import { TODAY, loadFixture } from '../../support/server.ts';

/** What the audit routes never use: any call of it fails the test. */
const unused = new Proxy({} as never, {
  get: (_t, name) => {
    throw new Error(`the audit routes used ${String(name)}`);
  },
});

describe('GET /api/auditoria/exportar on an instance that keeps its events in KurrentDB', () => {
  let t: TestDb;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    key = (await createApiKey(t.db, { name: 'auditor', scopes: ['auditoria'] })).key;
    const config = loadConfig({
      DATABASE_URL: t.url ?? '',
      EVENT_STORE: 'kurrentdb',
      KURRENTDB_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
      VACACIONES_TODAY: TODAY,
      LOG_LEVEL: 'silent',
      PORT: '0',
    });
    // The adapter over the in-memory KurrentDB the adapter's own tests use.
    const store = new KurrentEventStore(() => new FakeKurrentClient(new FakeKurrentLog()));
    const deps: AppDeps = {
      config,
      db: t.db,
      store,
      reference: new ReferenceRepository(t.db),
      commands: unused,
      audits: unused,
      readSide: unused,
      verifyApiKey: (k) => verifyApiKey(t.db, k),
      today: () => TODAY,
      checkReady: async () => {},
      projectionStatus: async () => [],
    };
    app = await buildApp(deps, { logger: createLogger(config) });
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const exportar = (query: Record<string, string>) =>
    app.inject({ method: 'GET', url: `/api/auditoria/exportar?${new URLSearchParams(query)}`, headers: { 'x-api-key': `Bearer ${key}` } });

  it('answers 501 in the lookup envelope, saying the export needs the PostgreSQL event store', async () => {
    const queries: Record<string, string>[] = [
      { numeroDocumento: W.maria, emailResponsable: ADMIN },
      { subgerencia: 'SG-OPS', emailResponsable: ADMIN },
    ];
    for (const query of queries) {
      const r = await exportar(query);
      expect(r.statusCode).toBe(501);
      expect(r.json()).toEqual({
        success: false,
        statusCode: 501,
        message: 'La exportación de auditoría necesita el almacén de eventos PostgreSQL; esta instancia guarda sus eventos en KurrentDB.',
      });
    }
  });

  it('still answers bad requests first, as on PostgreSQL', async () => {
    const r = await exportar({ numeroDocumento: '9999999999', emailResponsable: ADMIN });
    expect(r.statusCode).toBe(404);
  });

  it('verifies a worker by reading its streams from the store', async () => {
    const r = await app.inject({
      method: 'GET',
      url: `/api/auditoria/verificar?${new URLSearchParams({ numeroDocumento: W.maria, emailResponsable: ADMIN })}`,
      headers: { 'x-api-key': `Bearer ${key}` },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json()).toMatchObject({ verificado: true, eventos: 0, rupturas: [] });
  });
});
