import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { allProjectors, readCheckpoints } from '../../../src/projections/index.ts';
import { createService, type Service } from '../../../src/service.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { comparePositions } from '../../../src/store/types.ts';
import { appendScenario } from '../../support/event-builders.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { counts, dumpTables } from './support.ts';

describe.skipIf(!hasServer())(
  `a service that starts far behind the log on PostgreSQL${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
  () => {
    let t: TestDb;
    let service: Service | undefined;
    const lines: { msg: string; component?: string }[] = [];

    beforeAll(async () => {
      t = await freshDb();
    });
    afterAll(async () => {
      await service?.close().catch(() => {});
      await t?.drop();
    });

    it('rebuilds its read models by the command line, in a process of its own, before it serves', async () => {
      const head = await appendScenario(new PostgresEventStore(t.db), 10, 61);
      const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'info', PORT: '0' });
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string }) });
      service = await createService(config, logger, { bulkStart: { minLag: 10, minShare: 0.25 } });

      const said = lines.map((l) => l.msg);
      expect(said).toContain('read models far behind the event log: rebuilding them before taking traffic');
      // The command's own last line, told by the service's log: it ran as `projections rebuild`.
      expect(said.some((m) => m.startsWith(`rebuilt ${allProjectors.map((p) => p.name).join(', ')}: `))).toBe(true);
      expect(said).toContain('read models rebuilt');
      expect(said).not.toContain('the rebuild at start-up did not complete; the runners catch up');
      // Whole once the service is built, before it listens.
      const cps = await readCheckpoints(
        t.db,
        allProjectors.map((p) => p.name),
      );
      expect([...cps.values()].every((c) => comparePositions(c, head) >= 0)).toBe(true);
      const tables = counts(await dumpTables(t.db));
      expect(tables.rm_vacations).toBeGreaterThan(0);
      expect(tables.rm_worker_states).toBeGreaterThan(0);
    });
  },
);
