import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../../src/app/context.ts';
import { ReferenceRepository } from '../../../src/reference/repository.ts';
import { BatchedAppender } from '../../../src/caching/batched-appender.ts';
import type { TestDb } from '../../support/db.ts';
import { appendRaw, binaryEvent, fakeStore } from '../../support/fake-kurrent.ts';
import { ADMIN, W } from '../../support/http.ts';
import { appOnKurrent } from '../../support/kurrent-app.ts';

/**
 * Consults whose audit records go to KurrentDB (the adapter over the in-memory model of a node)
 * through the audit appender, while another writer lands on one worker's audit stream before
 * every append of this one. The workers have no vacation records (the read side answers none).
 */
describe('GET /api/vacaciones/consultdatavacations when an audit stream is contended in KurrentDB', () => {
  let t: TestDb;
  let app: FastifyInstance;
  let key: string;
  const kurrent = fakeStore();

  beforeAll(async () => {
    ({ t, app, key } = await appOnKurrent({
      key: { name: 'consultas', scopes: ['vacaciones'] },
      parts: async (reference) => {
        const contended = `audit-worker-${(await reference.workerByDocument(W.juan))!.id}`;
        appendRaw(kurrent.log, contended, 'no_stream', [binaryEvent()]);
        kurrent.client().onAppend = (requests, storeIt) => {
          if (requests.some((r) => r.streamName === contended)) appendRaw(kurrent.log, contended, 'any', [binaryEvent()]);
          return storeIt();
        };
        return {
          store: kurrent.store,
          audits: new BatchedAppender(kurrent.store),
          readSide: { liveRecordsOf: async () => [] } as unknown as AppDeps['readSide'],
        };
      },
    }));
  });
  afterAll(async () => {
    await app?.close();
    await t?.drop();
  });

  const consult = (document: string) =>
    app.inject({
      method: 'GET',
      url: `/api/vacaciones/consultdatavacations?numeroDocumento=${document}&emailResponsable=${ADMIN}`,
      headers: { 'x-api-key': `Bearer ${key}` },
    });

  it("answers the other workers' consults of the same batch, and the contended worker's with a 503 to retry, never a 500", async () => {
    const answers = await Promise.all([consult(W.maria), consult(W.juan), consult(W.luisa)]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 503, 200]);
    expect(answers[1]!.json()).toMatchObject({ success: false, statusCode: 503 });
    const maria = (await new ReferenceRepository(t.db).workerByDocument(W.maria))!.id;
    expect((await kurrent.store.readStream(`audit-worker-${maria}`)).map((e) => e.type)).toEqual(['VacationDataConsulted']);
  });
});
