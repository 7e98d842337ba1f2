import type { Db, Queryable } from '../db/types.ts';
import {
  DuplicateEventIdError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type Position,
  type ReadAllOptions,
  type StoredEvent,
  type StreamWrite,
} from './types.ts';

interface EventRow {
  position: string;
  tx_id: string;
  event_id: string;
  stream: string;
  revision: string;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: string;
}

const COLUMNS = `position::text, tx_id::text, event_id::text, stream, revision::text, type, version, data, metadata,
  to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS recorded_at`;

// Only rows written by transactions older than every transaction still open are final: a later
// append may commit before an earlier one, and a reader must not step over the earlier one.
const VISIBLE = `tx_id < pg_snapshot_xmin(pg_current_snapshot())`;

const UNIQUE_VIOLATION = '23505';

function toStored(r: EventRow): StoredEvent {
  return {
    id: r.event_id,
    stream: r.stream,
    revision: Number(r.revision),
    type: r.type,
    version: Number(r.version),
    data: r.data,
    metadata: r.metadata,
    position: { commit: BigInt(r.tx_id), prepare: BigInt(r.position) },
    recordedAt: r.recorded_at,
  };
}

function satisfies(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}

export class PostgresEventStore implements EventStore {
  readonly name = 'postgres';

  constructor(private readonly db: Db) {}

  async append(writes: StreamWrite[]): Promise<AppendResult> {
    try {
      return await this.db.transaction((tx) => this.appendIn(tx, writes));
    } catch (err) {
      // A concurrent append of the very same events (a retried request) won the race: answer
      // as the idempotent retry it is rather than as a conflict.
      if (err instanceof WrongExpectedRevisionError || isUniqueViolation(err)) {
        const ids = writes.flatMap((w) => w.events.map((e) => e.id));
        const stored = await this.storedIds(ids);
        if (ids.length > 0 && stored.length === ids.length) return idempotentResult(stored);
      }
      if (isUniqueViolation(err)) {
        // Two appends created the same stream at once; the loser sees it as a revision conflict.
        const detail = /\(stream\)=\((.*)\)/.exec((err as { detail?: string }).detail ?? '');
        const stream = detail?.[1] ?? writes[0]!.stream;
        const w = writes.find((x) => x.stream === stream) ?? writes[0]!;
        throw new WrongExpectedRevisionError(stream, w.expectedRevision, 'no_stream');
      }
      throw err;
    }
  }

  private async storedIds(ids: string[], q: Queryable = this.db): Promise<StoredIdRow[]> {
    if (ids.length === 0) return [];
    const r = await q.query<StoredIdRow>(
      `SELECT stream, revision::text, position::text, tx_id::text FROM events WHERE event_id = ANY($1::uuid[])`,
      [ids],
    );
    return r.rows;
  }

  /**
   * Appends inside an open transaction, so that callers (the reference-data import) can add
   * events atomically with their own writes.
   */
  async appendIn(tx: Queryable, writes: StreamWrite[]): Promise<AppendResult> {
    const ids = writes.flatMap((w) => w.events.map((e) => e.id));
    if (new Set(ids).size !== ids.length) throw new DuplicateEventIdError('an append names the same event id twice');
    const existing = await this.storedIds(ids, tx);
    if (ids.length > 0 && existing.length === ids.length) return idempotentResult(existing);
    if (existing.length > 0) {
      throw new DuplicateEventIdError(`${existing.length} of ${ids.length} event ids are already stored`);
    }

    // Lock streams in name order so that two multi-stream appends cannot deadlock.
    const current = new Map<string, number | 'no_stream'>();
    for (const stream of [...new Set(writes.map((w) => w.stream))].sort()) {
      const r = await tx.query<{ revision: string }>('SELECT revision::text FROM streams WHERE stream = $1 FOR UPDATE', [
        stream,
      ]);
      current.set(stream, r.rows[0] ? Number(r.rows[0].revision) : 'no_stream');
    }

    const revisions: AppendResult['revisions'] = [];
    let last: Position | undefined;
    for (const w of writes) {
      const actual = current.get(w.stream)!;
      if (!satisfies(w.expectedRevision, actual)) {
        throw new WrongExpectedRevisionError(w.stream, w.expectedRevision, actual);
      }
      const base = actual === 'no_stream' ? -1 : actual;
      if (w.events.length === 0) {
        revisions.push({ stream: w.stream, revision: base });
        continue;
      }
      const next = base + w.events.length;
      if (actual === 'no_stream') {
        await tx.query('INSERT INTO streams (stream, revision) VALUES ($1, $2)', [w.stream, next]);
      } else {
        await tx.query('UPDATE streams SET revision = $2 WHERE stream = $1', [w.stream, next]);
      }
      current.set(w.stream, next);
      const r = await tx.query<{ position: string; tx_id: string }>(
        `INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
         SELECT e.id, $1, $2::bigint + e.ord, e.type, e.version, e.data, e.metadata
         FROM unnest($3::uuid[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[]) WITH ORDINALITY
              AS e(id, type, version, data, metadata, ord)
         ORDER BY e.ord
         RETURNING position::text, tx_id::text`,
        [
          w.stream,
          base,
          w.events.map((e) => e.id),
          w.events.map((e) => e.type),
          w.events.map((e) => e.version ?? 1),
          w.events.map((e) => JSON.stringify(e.data)),
          w.events.map((e) => JSON.stringify(e.metadata ?? {})),
        ],
      );
      for (const row of r.rows) {
        const p = { commit: BigInt(row.tx_id), prepare: BigInt(row.position) };
        if (!last || p.prepare > last.prepare) last = p;
      }
      revisions.push({ stream: w.stream, revision: next });
    }
    return { revisions, position: last ?? (await this.headPosition()) };
  }

  async readStream(stream: string, opts: { fromRevision?: number } = {}): Promise<StoredEvent[]> {
    const r = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream = $1 AND revision >= $2 ORDER BY events.revision`,
      [stream, opts.fromRevision ?? 0],
    );
    return r.rows.map(toStored);
  }

  async readAll({ after, limit }: ReadAllOptions): Promise<StoredEvent[]> {
    const r = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events
       WHERE (tx_id, position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}
       ORDER BY events.tx_id, events.position
       LIMIT $3`,
      [after.commit.toString(), after.prepare.toString(), limit],
    );
    return r.rows.map(toStored);
  }

  async headPosition(): Promise<Position> {
    const r = await this.db.query<{ tx_id: string; position: string }>(
      `SELECT tx_id::text, position::text FROM events WHERE ${VISIBLE} ORDER BY events.tx_id DESC, events.position DESC LIMIT 1`,
    );
    const row = r.rows[0];
    return row ? { commit: BigInt(row.tx_id), prepare: BigInt(row.position) } : { commit: 0n, prepare: 0n };
  }

  async countAfter(after: Position): Promise<number> {
    const r = await this.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM events WHERE (tx_id, position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}`,
      [after.commit.toString(), after.prepare.toString()],
    );
    return Number(r.rows[0]?.n ?? 0);
  }

  async ping(): Promise<void> {
    await this.db.query('SELECT 1 FROM streams LIMIT 1');
  }

  async close(): Promise<void> {
    // The database is owned by whoever opened it.
  }
}

interface StoredIdRow {
  stream: string;
  revision: string;
  position: string;
  tx_id: string;
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === UNIQUE_VIOLATION;
}

function idempotentResult(rows: StoredIdRow[]): AppendResult {
  const byStream = new Map<string, number>();
  let last: Position = { commit: 0n, prepare: 0n };
  for (const r of rows) {
    byStream.set(r.stream, Math.max(byStream.get(r.stream) ?? -1, Number(r.revision)));
    const p = { commit: BigInt(r.tx_id), prepare: BigInt(r.position) };
    if (p.prepare > last.prepare) last = p;
  }
  return { revisions: [...byStream].map(([stream, revision]) => ({ stream, revision })), position: last };
}
