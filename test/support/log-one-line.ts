// Writes one log record through the service's logger, to whatever stdout is (a terminal or a pipe).
import { createLogger } from '../../src/logger.ts';

createLogger({ logLevel: 'info' }).info({ reqId: 'r-1' }, 'una línea del registro');
