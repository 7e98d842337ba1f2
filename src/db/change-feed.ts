import pg from 'pg';

/** Topics a process announces so that other processes drop what they cached. */
export type ChangeTopic = 'api_keys' | 'reference';

export const CHANGES_CHANNEL = 'vacaciones_changes';

/** SQL that announces a change; run it in the transaction that made the change. */
export const announce = (topic: ChangeTopic) => `SELECT pg_notify('${CHANGES_CHANNEL}', '${topic}')`;

export interface ChangeFeed {
  /** True while changes made elsewhere are guaranteed to be heard; caches must not serve otherwise. */
  readonly healthy: boolean;
  close(): Promise<void>;
}

interface FeedLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * LISTENs for changes announced by other processes (the CLI revoking a key, an import) on a
 * connection of its own. While it is not connected, `healthy` is false and every cache behind it
 * goes to the database; on reconnection everything cached is dropped, since changes may have
 * been missed meanwhile.
 */
export class PostgresChangeFeed implements ChangeFeed {
  healthy = false;
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  private constructor(
    private readonly connectionString: string,
    private readonly onChange: (topic: ChangeTopic | 'all') => void,
    private readonly logger?: FeedLogger,
  ) {}

  static async start(
    connectionString: string,
    onChange: (topic: ChangeTopic | 'all') => void,
    logger?: FeedLogger,
  ): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(connectionString, onChange, logger);
    await feed.connect();
    return feed;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (this.client !== client) return;
      this.healthy = false;
      this.client = undefined;
      client.end().catch(() => {});
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL) this.tell((n.payload as ChangeTopic) ?? 'all');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      this.client = client;
      this.tell('all');
      this.healthy = true;
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'change feed could not listen; caches bypassed until it can');
      client.end().catch(() => {});
      this.schedule();
    }
  }

  private tell(topic: ChangeTopic | 'all'): void {
    try {
      this.onChange(topic);
    } catch (err) {
      this.logger?.warn({ err: (err as Error).message }, 'change listener failed');
    }
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, 1000);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.healthy = false;
    clearTimeout(this.retry);
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => {});
  }
}

/** The embedded database belongs to one process: nothing can change behind its back. */
export const localChangeFeed: ChangeFeed = { healthy: true, close: async () => {} };
