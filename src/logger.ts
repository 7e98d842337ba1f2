import { createRequire } from 'node:module';
import pino from 'pino';
import type PinoPretty from 'pino-pretty';
import { bogotaTimestamp } from './domain/dates.ts';
import type { Config } from './config/config.ts';

/**
 * JSON lines to stdout; secrets that could reach a log are redacted by path. Writes are
 * asynchronous: a slow reader of stdout (a log shipper, a full pipe) must not stall requests.
 * pino flushes what is pending when the process exits. On a terminal, where a person reads them,
 * the same records as pino-pretty's coloured lines (in Bogotá's time, as the service speaks).
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
  // Loaded only for a terminal: memory a service logging JSON never needs.
  const onTerminal = () =>
    (createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty)({
      colorize: true,
      // A person reads it as it happens, and nothing is lost when the process ends.
      sync: true,
      ignore: 'pid,hostname,service',
      translateTime: false,
      customPrettifiers: { time: (t) => bogotaTimestamp(new Date(String(t))) },
    });
  return pino(options, destination ?? (process.stdout.isTTY ? onTerminal() : pino.destination({ dest: 1, sync: false })));
}

export type Logger = ReturnType<typeof createLogger>;
