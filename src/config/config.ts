/** A configuration problem that stops start-up; its message is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const dateRe = /^\d{4}-\d{2}-\d{2}$/;
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  eventStore: 'postgres' | 'kurrentdb';
  kurrentdbUrl: string | undefined;
  today: string | undefined;
  logLevel: (typeof LEVELS)[number];
  holidaysFile: string | undefined;
  rateLimitPerMinute: number;
  /** Webhook deliveries: the wait for an answer, the first retry's delay, and how long an event is retried before it is given up on. */
  webhookTimeoutMs: number;
  webhookRetryBaseMs: number;
  webhookGiveUpAfterS: number;
  /** Webhooks may be added for and delivered to loopback, private and other internal addresses (tests, internal deployments). */
  webhookAllowPrivate: boolean;
  bodyLimitBytes: number;
  /**
   * How long the server's connections let one statement run, and wait for a lock, before
   * PostgreSQL cancels it (0: no limit): a request held up past them answers 503 instead of
   * hanging. Operator commands (import, rebuild, migrate) run without them.
   */
  databaseStatementTimeoutMs: number;
  databaseLockTimeoutMs: number;
  /** Longest the server waits for a request's headers, and for the whole request, before answering 408. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Connections the service keeps to PostgreSQL (the projectors and the change feed take 2 more). */
  databasePoolSize: number;
  /** Off only for debugging: see batchLimit (src/store/gather.ts). */
  batching: boolean;
  /**
   * Which proxies to believe about the client's protocol and address (X-Forwarded-Proto/-For):
   * none, the nearest N hops, or the listed addresses and networks. Behind a TLS-terminating
   * proxy it lets the panel mark its session cookie Secure. Never "all": see trustProxyVar.
   */
  trustProxy: false | number | string[];
}

type Env = Record<string, string | undefined>;

function fail(name: string, value: string | undefined, expected: string): never {
  throw new ConfigError(`${name}=${JSON.stringify(value)} is not valid: expected ${expected}`);
}

function intVar(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw)) fail(name, raw, `a whole number from ${min} to ${max}`);
  const n = Number(raw);
  if (n < min || n > max) fail(name, raw, `a whole number from ${min} to ${max}`);
  return n;
}

function isRealDate(s: string): boolean {
  if (!dateRe.test(s)) return false;
  const [y, m, d] = s.split('-').map(Number) as [number, number, number];
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function trustProxyVar(env: Env): Config['trustProxy'] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  // Believing every hop makes the client's own left-most X-Forwarded-For its address, so anyone
  // could pick a new one per request and slip past the per-address sign-in throttle and lock.
  if (raw === 'true') {
    fail(
      'TRUST_PROXY',
      raw,
      'the number of proxies in front of the service (such as 1) or their addresses: "true" would believe any X-Forwarded-For a client writes',
    );
  }
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((s) => s.trim());
  if (list.some((s) => !/^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(s))) {
    fail('TRUST_PROXY', raw, '"false", a number of hops, or a comma-separated list of proxy addresses or networks (CIDR)');
  }
  return list;
}

export function loadConfig(env: Env = process.env): Config {
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';

  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    fail('DATABASE_URL', databaseUrl, 'a postgres:// or postgresql:// connection string');
  }

  const eventStore = env.EVENT_STORE || 'postgres';
  if (eventStore !== 'postgres' && eventStore !== 'kurrentdb') {
    fail('EVENT_STORE', eventStore, '"postgres" or "kurrentdb"');
  }
  const kurrentdbUrl = env.KURRENTDB_URL || undefined;
  if (eventStore === 'kurrentdb') {
    if (!kurrentdbUrl) fail('KURRENTDB_URL', kurrentdbUrl, 'a kurrentdb:// connection string when EVENT_STORE=kurrentdb');
    // The schemes client 1.3.1 and its read bridge both take (the client's own list).
    if (!/^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//.test(kurrentdbUrl)) {
      fail('KURRENTDB_URL', kurrentdbUrl, 'a kurrentdb://, kurrent://, kdb:// or esdb:// connection string (each also +discover)');
    }
  }

  const today = env.VACACIONES_TODAY || undefined;
  if (today !== undefined && !isRealDate(today)) fail('VACACIONES_TODAY', today, 'a real date as YYYY-MM-DD');

  const batchingText = env.VACACIONES_BATCHING || 'on';
  if (batchingText !== 'on' && batchingText !== 'off') fail('VACACIONES_BATCHING', batchingText, '"on" or "off"');
  const batching = batchingText === 'on';

  const allowPrivateText = env.WEBHOOK_ALLOW_PRIVATE || '0';
  if (allowPrivateText !== '0' && allowPrivateText !== '1') fail('WEBHOOK_ALLOW_PRIVATE', allowPrivateText, '"1" or "0"');

  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!(LEVELS as readonly string[]).includes(logLevel)) fail('LOG_LEVEL', logLevel, LEVELS.join(', '));

  return {
    port,
    host,
    databaseUrl,
    dataDir: env.DATA_DIR || './data',
    eventStore,
    kurrentdbUrl,
    today,
    logLevel,
    holidaysFile: env.HOLIDAYS_FILE || undefined,
    rateLimitPerMinute: intVar(env, 'RATE_LIMIT_PER_MINUTE', 6000, 0, 10_000_000),
    webhookTimeoutMs: intVar(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookRetryBaseMs: intVar(env, 'WEBHOOK_RETRY_BASE_MS', 1000, 10, 3_600_000),
    webhookGiveUpAfterS: intVar(env, 'WEBHOOK_GIVE_UP_AFTER_S', 86_400, 1, 86_400),
    webhookAllowPrivate: allowPrivateText === '1',
    bodyLimitBytes: intVar(env, 'BODY_LIMIT_BYTES', 65536, 1024, 10 * 1024 * 1024),
    databasePoolSize: intVar(env, 'DATABASE_POOL_SIZE', 30, 2, 500),
    databaseStatementTimeoutMs: intVar(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    databaseLockTimeoutMs: intVar(env, 'DATABASE_LOCK_TIMEOUT_MS', 5_000, 0, 3_600_000),
    headersTimeoutMs: intVar(env, 'HEADERS_TIMEOUT_MS', 20_000, 1_000, 300_000),
    requestTimeoutMs: intVar(env, 'REQUEST_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    batching,
    trustProxy: trustProxyVar(env),
  };
}
