import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { KurrentEventStore } from '../../../src/store/kurrentdb-store.ts';
import type { TestDb } from '../../support/db.ts';
import { FakeKurrentClient, FakeKurrentLog } from '../../support/fake-kurrent.ts';
import { ADMIN, W } from '../../support/http.ts';
import { appOnKurrent } from '../../support/kurrent-app.ts';

describe('GET /api/auditoria/exportar on an instance that keeps its events in KurrentDB', () => {
  let t: TestDb;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    // The adapter over the in-memory KurrentDB the adapter's own tests use.
    ({ t, app, key } = await appOnKurrent({
      key: { name: 'auditor', scopes: ['auditoria'] },
      parts: async () => ({ store: new KurrentEventStore(() => new FakeKurrentClient(new FakeKurrentLog())) }),
    }));
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
