import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/config.ts';
import { buildServer } from '../../src/server.ts';
import { HolidayCalendar } from '../../src/domain/index.ts';
import type { AppDeps } from '../../src/app/context.ts';
import { createLogger } from '../../src/logger.ts';
import { importReferenceData } from '../../src/reference/import.ts';
import { ReferenceRepository } from '../../src/reference/repository.ts';
import { createApiKey, verifyApiKey } from '../../src/security/api-keys.ts';
import { freshDb, type TestDb } from './db.ts';
import { TODAY, loadFixture } from './server.ts';

/**
 * The HTTP app of an instance that keeps its events in KurrentDB (the parts given: the adapter
 * over the in-memory model of a node), on a fresh database with the fixture's reference data and
 * one API key. Every part not given fails the test when used.
 */
export async function appOnKurrent(opts: {
  key: { name: string; scopes: string[] };
  parts: (reference: ReferenceRepository) => Promise<Pick<AppDeps, 'store'> & Partial<AppDeps>>;
}): Promise<{ t: TestDb; app: FastifyInstance; key: string }> {
  const unused = new Proxy({} as never, {
    get: (_t, name) => {
      throw new Error(`the routes under test used ${String(name)}`);
    },
  });
  const t = await freshDb();
  await importReferenceData(t.db, loadFixture());
  const key = (await createApiKey(t.db, opts.key)).key;
  const config = loadConfig({
    DATABASE_URL: t.url ?? '',
    EVENT_STORE: 'kurrentdb',
    KURRENTDB_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
    VACACIONES_TODAY: TODAY,
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const reference = new ReferenceRepository(t.db);
  const deps: AppDeps = {
    config,
    db: t.db,
    reference,
    commands: unused,
    closures: unused,
    planBooking: unused,
    audits: unused,
    readSide: unused,
    verifyApiKey: (k) => verifyApiKey(t.db, k),
    today: () => TODAY,
    calendar: new HolidayCalendar(),
    checkReady: async () => {},
    projectionStatus: async () => [],
    ...(await opts.parts(reference)),
  };
  return { t, app: await buildServer(deps, { logger: createLogger(config) }), key };
}
