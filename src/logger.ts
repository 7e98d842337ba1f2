import pino from 'pino';
import type { Config } from './config/config.ts';

/**
 * JSON lines to stdout; secrets that could reach a log are redacted by path. Writes are
 * asynchronous: a slow reader of stdout (a log shipper, a full pipe) must not stall requests.
 * pino flushes what is pending when the process exits.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream) {
  const options = {
    level: config.logLevel,
    base: { service: 'vacaciones' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'headers["x-api-key"]',
        'req.headers.authorization',
        'headers.authorization',
        'apiKeySecret',
        '*.password',
      ],
      censor: '[redactado]',
    },
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}

export type Logger = ReturnType<typeof createLogger>;
