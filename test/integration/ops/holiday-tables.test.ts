import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';

/** Whether the holiday library's module has been loaded in this process (each test file runs in one of its own). */
const holidayTablesLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/date-holidays/'));

describe('the holiday tables', () => {
  let t: TestDb | undefined;
  let dir: string | undefined;
  let service: Service | undefined;
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Loading them takes some 200 ms on a busy machine: the first request that counts a business
  // day (calculate, add) would wait for it.
  it('are loaded by the service before it listens, not by its first request', async () => {
    expect(holidayTablesLoaded()).toBe(false);
    const env: Record<string, string> = { VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0' };
    if (hasServer()) env.DATABASE_URL = (t = await freshDb({ migrate: false })).url!;
    else env.DATA_DIR = dir = mkdtempSync(join(tmpdir(), 'vac-holidays-'));
    const config = loadConfig(env);
    service = await createService(config, createLogger(config), { webhooks: false });
    expect(holidayTablesLoaded()).toBe(true);
  });
});
