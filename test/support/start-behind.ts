// A service started over a database whose read models are far behind its log, with the start-up
// rebuild's thresholds lowered to a test's few events; its log lines on standard output. Run by
// test/integration/projections/bulk-start-lifeline.test.ts, which kills it mid-start.
import pino from 'pino';
import { loadConfig } from '../../src/config/config.ts';
import { createService } from '../../src/service.ts';

const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'info', PORT: '0' });
const logger = pino({ level: 'info' }, pino.destination({ dest: 1, sync: true }));
const service = await createService(config, logger, { bulkStart: { minLag: 10, minShare: 0.25 } });
await service.close();
