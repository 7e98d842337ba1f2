import { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';

describe('configuration from the environment', () => {
  it('given nothing, then the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      eventStore: 'postgres',
      today: undefined,
      logLevel: 'info',
      rateLimitPerMinute: 6000,
      bodyLimitBytes: 65536,
      databasePoolSize: 30,
      databaseStatementTimeoutMs: 30_000,
      databaseLockTimeoutMs: 5_000,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 60_000,
      batching: true,
      trustProxy: false,
      webhookAllowPrivate: false,
    });
  });

  it('given TRUST_PROXY, then no proxy, a number of hops or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16']);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['EVENT_STORE', 'mongo'],
    ['VACACIONES_TODAY', '2026-02-30'],
    ['VACACIONES_TODAY', '21/11/2026'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['BODY_LIMIT_BYTES', '10'],
    ['DATABASE_POOL_SIZE', '1'],
    ['DATABASE_LOCK_TIMEOUT_MS', '-5'],
    ['HEADERS_TIMEOUT_MS', '10'],
    ['VACACIONES_BATCHING', 'no'],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes'],
    ['TRUST_PROXY', 'yes please'],
    // Every hop believed would let a client choose its own address with X-Forwarded-For.
    ['TRUST_PROXY', 'true'],
  ])('given %s=%s, then start-up stops with one line naming the variable', (name, value) => {
    const attempt = () => loadConfig({ [name]: value });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const message = (err as Error).message;
      expect(message.startsWith(`${name}=`)).toBe(true);
      expect(message).not.toContain('\n');
    }
  });

  it('given EVENT_STORE=kurrentdb, then KURRENTDB_URL is required and checked', () => {
    expect(() => loadConfig({ EVENT_STORE: 'kurrentdb' })).toThrow(/^KURRENTDB_URL=/);
    expect(loadConfig({ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: 'kurrentdb://localhost:2113?tls=false' }).kurrentdbUrl).toBe(
      'kurrentdb://localhost:2113?tls=false',
    );
  });

  it('takes the schemes the KurrentDB client takes, and no other', () => {
    const accepted = ['kurrentdb://h:2113', 'kurrent://h:2113', 'kdb+discover://h:2113', 'esdb://h:2113', 'kurrentdb+discover://h:2113'];
    for (const url of accepted) {
      expect(loadConfig({ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: url }).kurrentdbUrl).toBe(url);
      expect(() => KurrentDBClient.connectionString(url).dispose()).not.toThrow();
    }
    for (const url of ['eventstoredb://h:2113', 'http://h:2113']) {
      expect(() => loadConfig({ EVENT_STORE: 'kurrentdb', KURRENTDB_URL: url })).toThrow(/^KURRENTDB_URL=/);
      expect(() => KurrentDBClient.connectionString(url)).toThrow();
    }
  });
});

describe('the batching switch', () => {
  it('VACACIONES_BATCHING=off turns batching off; on is the default', () => {
    expect(loadConfig({ VACACIONES_BATCHING: 'off' }).batching).toBe(false);
    expect(loadConfig({ VACACIONES_BATCHING: 'on' }).batching).toBe(true);
  });

  it('WEBHOOK_ALLOW_PRIVATE=1 allows webhooks to internal addresses; 0 is the default', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '1' }).webhookAllowPrivate).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '0' }).webhookAllowPrivate).toBe(false);
  });
});
