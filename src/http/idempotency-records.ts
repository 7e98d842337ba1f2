import type { Migration, Queryable } from '../db/types.ts';

/**
 * The idempotency records: the first answer to each Idempotency-Key, per API key. The one place
 * that reads or writes idempotency_keys; src/http/idempotency.ts decides what to do with them.
 */

/** The table's migration. Frozen (test/unit/db/migrations.test.ts pins its hash): a change is a new migration. */
export const idempotencyMigrations: Migration[] = [
  {
    version: 6,
    name: 'idempotency keys',
    sql: `
      -- First answer to each Idempotency-Key, per API key, so that a retried write is not applied twice.
      CREATE TABLE idempotency_keys (
        api_key_id   uuid NOT NULL,
        key          text NOT NULL,
        route        text NOT NULL,
        fingerprint  text NOT NULL,
        status_code  integer,
        body         jsonb,
        created_at   timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        PRIMARY KEY (api_key_id, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
    `,
  },
  {
    version: 62,
    name: 'idempotency keys: the instance that claimed each, answers kept as sent',
    // The process holding a claim, so that a retry can tell a claim whose process has ended
    // (src/db/instance-liveness.ts) from one still running. Null for claims made before. The
    // answer as json, not jsonb, so that a replay sends its fields in the order first sent.
    sql: `
      ALTER TABLE idempotency_keys ADD COLUMN instance_id integer;
      ALTER TABLE idempotency_keys ALTER COLUMN body TYPE json USING body::json;
    `,
  },
];

/** A key already claimed: the request it was sent with, its answer once there is one, and its age. */
export interface IdempotencyRecord {
  fingerprint: string;
  statusCode: number | null;
  body: unknown;
  ageSeconds: number;
  /** The instance of the process that holds the claim (null: claimed before instances were recorded). */
  instanceId: number | null;
}

export interface IdempotencyKey {
  apiKeyId: string;
  key: string;
}

export class IdempotencyRecords {
  constructor(private readonly db: Queryable) {}

  /** Claims the key for a request; false when it was claimed already. */
  async claim(k: IdempotencyKey, route: string, fingerprint: string, instanceId: number | null): Promise<boolean> {
    const r = await this.db.query(
      `INSERT INTO idempotency_keys (api_key_id, key, route, fingerprint, instance_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING key`,
      [k.apiKeyId, k.key, route, fingerprint, instanceId],
    );
    return r.rowCount > 0;
  }

  async find(k: IdempotencyKey): Promise<IdempotencyRecord | undefined> {
    const r = await this.db.query<{
      fingerprint: string;
      status_code: number | null;
      body: unknown;
      age_s: string;
      instance_id: number | null;
    }>(
      `SELECT fingerprint, status_code, body, extract(epoch FROM now() - created_at)::text AS age_s, instance_id
         FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
      [k.apiKeyId, k.key],
    );
    const row = r.rows[0];
    return (
      row && {
        fingerprint: row.fingerprint,
        statusCode: row.status_code,
        body: row.body,
        ageSeconds: Number(row.age_s),
        instanceId: row.instance_id,
      }
    );
  }

  /**
   * Moves a claim still unanswered from the instance `from` to `to`; false when it was answered
   * or taken over by another meanwhile, so that only one retry takes it.
   */
  async takeOver(k: IdempotencyKey, from: number | null, to: number | null): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE idempotency_keys SET instance_id = $4, created_at = now()
        WHERE api_key_id = $1 AND key = $2 AND status_code IS NULL AND instance_id IS NOT DISTINCT FROM $3
        RETURNING key`,
      [k.apiKeyId, k.key, from, to],
    );
    return r.rowCount > 0;
  }

  /** Keeps the answer given to the claiming request. */
  async complete(k: IdempotencyKey, statusCode: number, body: unknown): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET status_code = $3, body = $4::json, completed_at = now() WHERE api_key_id = $1 AND key = $2`,
      [k.apiKeyId, k.key, statusCode, JSON.stringify(body ?? null)],
    );
  }

  /** Frees the key, so that a retry runs again; `unanswered` frees it only while it has no answer. */
  async release(k: IdempotencyKey, opts: { unanswered?: boolean } = {}): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND key = $2${opts.unanswered ? ' AND status_code IS NULL' : ''}`,
      [k.apiKeyId, k.key],
    );
  }
}
