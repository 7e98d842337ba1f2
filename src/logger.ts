import pino from 'pino';
import type { Config } from './config/config.ts';

/** JSON lines to stdout; secrets that could reach a log are redacted by path. */
export function createLogger(config: Pick<Config, 'logLevel'>) {
  return pino({
    level: config.logLevel,
    base: { service: 'vacaciones' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'apiKeySecret', '*.password'],
      censor: '[redactado]',
    },
  });
}

export type Logger = ReturnType<typeof createLogger>;
