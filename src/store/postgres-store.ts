import { CopyLines, copyJson, copyText } from '../db/copy.ts';
import type { Db, Queryable } from '../db/types.ts';
import { APPEND_LOCK } from '../db/advisory-locks.ts';
import {
  GroupAppender,
  appendArguments,
  jsonbArray,
  repeatedJsonbArray,
  type AppendArguments,
  type GroupAppenderOptions,
  type GroupOutcome,
} from './group-append.ts';
import {
  DuplicateEventIdError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type Position,
  type ReadAllOptions,
  type ReadByStreamOptions,
  type StoredEvent,
  type PreparedImport,
  type StreamWrite,
} from './types.ts';

export interface EventRow {
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
  /** Absent from reads that fold the log rather than check its chain (BY_STREAM_PAGE). */
  hash?: string;
}

/** A StoredEvent's columns but its hash. */
const UNCHAINED_COLUMNS = `events.position::text, events.tx_id::text, events.event_id::text, events.stream, events.revision::text,
  events.type, events.version, events.data, events.metadata,
  to_char(events.recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS recorded_at`;

/** The columns of a StoredEvent read from the events table (named `events`), for storedFromRow. */
export const COLUMNS = `${UNCHAINED_COLUMNS}, encode(events.hash, 'hex') AS hash`;

// Only rows written by transactions older than every appending transaction still open are
// final: a later append may commit before an earlier one, and a reader must not step over the
// earlier one. Appending transactions hold the append lock (APPEND_LOCK) from before their first write
// until they end (vac_append), and every transaction holds a lock on its own id, so one read of
// pg_locks tells which of the snapshot's open transactions may still append here. Those it
// cannot place (ended since the snapshot) count as appenders, which only delays a reader.
const BOUNDARY = `(WITH held AS MATERIALIZED (
    SELECT l.pid, l.locktype, l.transactionid::text AS xid, l.database, l.classid, l.objid, l.objsubid
    FROM pg_locks l WHERE l.granted AND l.locktype IN ('transactionid', 'advisory')
  ), settled AS (
    SELECT t.xid FROM held t
    WHERE t.locktype = 'transactionid' AND NOT EXISTS (
      SELECT 1 FROM held a
      WHERE a.pid = t.pid AND a.locktype = 'advisory'
        AND a.classid = ${APPEND_LOCK.namespace} AND a.objid = ${APPEND_LOCK.id} AND a.objsubid = 2
        AND a.database = (SELECT oid FROM pg_database WHERE datname = current_database())))
  SELECT coalesce(min(x), pg_snapshot_xmax(pg_current_snapshot()))
  FROM pg_snapshot_xip(pg_current_snapshot()) AS x
  WHERE (x::text::numeric % 4294967296)::text NOT IN (SELECT xid FROM settled))`;
const VISIBLE = `tx_id < ${BOUNDARY}`;

const UNIQUE_VIOLATION = '23505';

/**
 * A page of the log read stream by stream: walks the (stream, revision) key from where the last
 * page ended; the position bound keeps out what was appended since `upTo` was read, all of it
 * visible then. Without the hashes: a rebuild folds the events, it does not check the chain
 * (`vacaciones verify` does), and their hex took an eighth of the database's time reading the
 * log for one.
 */
export const BY_STREAM_PAGE = `SELECT ${UNCHAINED_COLUMNS} FROM events
  WHERE (events.stream, events.revision) > ($1::text, $2::bigint) AND events.type = ANY ($3::text[])
    AND (tx_id, position) <= ($4::text::xid8, $5::bigint)
  ORDER BY events.stream, events.revision
  LIMIT $6`;

/** A page of the log in its order, after a position, of every event or (`typed`) of the types in $4. */
const logPage = (typed: boolean) => `SELECT ${COLUMNS} FROM events
  WHERE (tx_id, position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}${typed ? ' AND events.type = ANY ($4::text[])' : ''}
  ORDER BY events.tx_id, events.position
  LIMIT $3`;

/** The live runners' page: a condition on the key alone, which the planner estimates well without statistics. */
const LOG_PAGE = logPage(false);

/**
 * A page of the events of some types in the log's order (a rebuild's catch-up, and its whole read
 * where the store cannot read stream by stream).
 */
export const TYPED_LOG_PAGE = logPage(true);

/**
 * For the two pages above, the walk of the key is the one plan that stops at the page's end. A
 * log the planner has no statistics of (a bulk import where autovacuum is off, and the import
 * leaves the log's to it) got a scan and sort of the whole log for every page instead: the first
 * rebuild of 50,000 workers took 70 s rather than 33.
 */
export const KEY_WALK_PLAN =
  'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; SET LOCAL max_parallel_workers_per_gather = 0';

/** Where an import's events wait for their revisions, within its transaction. */
const IMPORTED = 'import_events';
/** Events made ready for an import between two turns of the event loop. */
const YIELD_EVERY = 1000;

export function storedFromRow(r: EventRow): StoredEvent {
  const e: StoredEvent = {
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
  // Set only when read (no key at all otherwise), without a spread's extra object for each of a
  // rebuild's events.
  if (r.hash !== undefined) e.hash = r.hash;
  return e;
}

interface AppendRow {
  out_stream: string;
  out_revision: string;
  out_position: string | null;
  out_tx: string;
  out_replayed: boolean;
}

export class PostgresEventStore implements EventStore {
  readonly name = 'postgres';
  private readonly groups: GroupAppender;

  constructor(
    private readonly db: Db,
    opts: GroupAppenderOptions = {},
  ) {
    this.groups = new GroupAppender(
      db,
      (writes, args) => this.callAppend(this.db, writes, args),
      (writes, outcome) => this.settle(writes, outcome),
      opts,
    );
  }

  logDatabase(): Db {
    return this.db;
  }

  async append(writes: StreamWrite[]): Promise<AppendResult> {
    try {
      // One statement is its own transaction (no BEGIN/COMMIT round trips), shared with the
      // other appends of the moment.
      return await this.groups.append(writes);
    } catch (err) {
      // A concurrent append of the very same events (a retried request) won the race: answer
      // as the idempotent retry it is rather than as a conflict.
      if (err instanceof WrongExpectedRevisionError || isUniqueViolation(err)) {
        const ids = writes.flatMap((w) => w.events.map((e) => e.id));
        const stored = await this.storedIds(ids);
        if (ids.length > 0 && stored.length === ids.length) return idempotentResult(stored, writes);
      }
      throw err;
    }
  }

  async appendAny(writes: StreamWrite[]): Promise<AppendResult> {
    for (const w of writes) {
      if (w.expectedRevision !== 'any') throw new Error(`appendAny takes no expected revision (stream ${w.stream})`);
    }
    const a = appendArguments(writes);
    // Straight to the database, not through the group appender: its callers gather their own
    // batches, and waiting a turn of the event loop for company would only add to their latency.
    const rows = (
      await this.db.query<Omit<AppendRow, 'out_replayed'>>(
        `SELECT * FROM vac_append_any($1::text[], $2::int[], $3::uuid[], $4::text[], $5::int[], ${jsonbArray(6)}, ${jsonbArray(7)})`,
        [a.streams, a.counts, a.ids, a.types, a.versions, JSON.stringify(a.data), JSON.stringify(a.meta)],
        { prepare: true },
      )
    ).rows;
    return this.appended(rows);
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
   * Marks a transaction as appending before its first write; a transaction that writes other
   * rows before calling appendIn (the reference-data import) must call this first.
   */
  async claimAppend(tx: Queryable): Promise<void> {
    await tx.query('SELECT vac_claim_append()');
  }

  async existingStreams(tx: Queryable, streams: string[]): Promise<Set<string>> {
    const r = await tx.query<{ stream: string }>(
      // One index probe per stream, fenced by OFFSET 0: as `stream = ANY($1)`, the planner
      // scans every stream of the log for an import chunk's thousands of codes.
      `SELECT u.stream FROM unnest($1::text[]) AS u(stream)
        CROSS JOIN LATERAL (SELECT 1 FROM streams s WHERE s.stream = u.stream AND s.revision >= 0 OFFSET 0) AS known`,
      [streams],
    );
    return new Set(r.rows.map((row) => row.stream));
  }

  /**
   * Appends inside an open transaction, so that callers (the reference-data import) can add
   * events atomically with their own writes. The work is one call of vac_append (postgres-schema/vac-append.ts).
   */
  async appendIn(tx: Queryable, writes: StreamWrite[]): Promise<AppendResult> {
    return this.callAppend(tx, writes);
  }

  /**
   * The reference-data import's append, inside its transaction (marked by claimAppend first):
   * writes that expect any revision or no stream, their COPY data made here and written by the
   * answer's `append` (appendPrepared). The events go in by COPY to a temporary table
   * and one statement moves them on: the stream rows claimed, locked (in name order, as every
   * append does) and moved on by one upsert, the events inserted at the revisions it gives.
   * vac_append, made for the appends of requests, parses its events out of array parameters
   * (three times the database's work of COPY) and checks every event id against the log and
   * looks streams up by joins the planner turns into scans of the whole log and every stream for
   * thousands of writes: an import paid a scan of the growing log per chunk. An event id already
   * stored fails on the log's unique index; a stream expected not to exist that does fails the
   * whole import (WrongExpectedRevisionError), which is what its transaction is for.
   */
  async prepareImport(writes: StreamWrite[]): Promise<PreparedImport> {
    const lines = new CopyLines();
    // An import's events share one metadata object: written out once.
    const metadataText = new Map<object, string>();
    const metadataOf = (m: Record<string, unknown> = {}) => {
      let text = metadataText.get(m);
      if (text === undefined) metadataText.set(m, (text = copyJson(m)));
      return text;
    };
    for (const w of writes) {
      if (w.expectedRevision !== 'any' && w.expectedRevision !== 'no_stream') {
        throw new Error(`an import appends with no expectation or to a new stream (stream ${w.stream})`);
      }
      const fresh = w.expectedRevision === 'no_stream' ? 't' : 'f';
      for (const e of w.events) {
        lines.add(
          `${lines.count}\t${e.id}\t${copyText(w.stream)}\t${fresh}\t${copyText(e.type)}\t${e.version ?? 1}\t` +
            `${copyJson(e.data)}\t${metadataOf(e.metadata)}`,
        );
        // A chunk takes tens of milliseconds to make: the chunk being written meanwhile must not
        // wait that long to send its next statement.
        if (lines.count % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return { append: (tx) => this.appendPrepared(tx, lines) };
  }

  private async appendPrepared(tx: Queryable, lines: CopyLines): Promise<void> {
    if (!tx.copyFrom) throw new Error('this database connection cannot COPY');
    if (lines.count === 0) return;
    await tx.exec(
      `CREATE TEMP TABLE IF NOT EXISTS ${IMPORTED} (
         j integer NOT NULL, event_id uuid NOT NULL, stream text NOT NULL, fresh boolean NOT NULL,
         type text NOT NULL, version integer NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL
       ) ON COMMIT DROP;
       TRUNCATE ${IMPORTED}`,
    );
    await tx.copyFrom(`${IMPORTED} (j, event_id, stream, fresh, type, version, data, metadata)`, lines.bytes());
    const r = await tx.query<{ stream: string; revision: string }>(
      `WITH w AS (
         SELECT i.stream, count(*) AS n, bool_or(i.fresh) AS fresh FROM ${IMPORTED} i GROUP BY i.stream
       ), s AS (
         INSERT INTO streams AS st (stream, revision)
         SELECT w.stream, w.n - 1 FROM w ORDER BY w.stream
         ON CONFLICT (stream) DO UPDATE SET revision = st.revision + excluded.revision + 1
         RETURNING st.stream, st.revision
       ), ws AS (
         -- Each stream's revision before the import's events, and the hash they chain on from.
         SELECT w.stream, w.n, w.fresh, s.revision AS last, s.revision - w.n AS cur,
                CASE WHEN s.revision - w.n >= 0
                     THEN (SELECT p.hash FROM events p WHERE p.stream = w.stream AND p.revision = s.revision - w.n) END AS prev
           FROM w JOIN s ON s.stream = w.stream
       ), c AS (
         SELECT i.j, i.event_id, i.stream, ws.cur + row_number() OVER (PARTITION BY i.stream ORDER BY i.j) AS revision,
                i.type, i.version, i.data, i.metadata, ws.prev
           FROM ${IMPORTED} i JOIN ws ON ws.stream = i.stream
       ), ins AS (
         -- The hash chain as vac_append makes it.
         INSERT INTO events (event_id, stream, revision, type, version, data, metadata, hash)
         SELECT c.event_id, c.stream, c.revision, c.type, c.version, c.data, c.metadata,
                vac_chain(c.prev, vac_event_canonical(c.stream, c.revision, c.type, c.version, c.data, c.metadata))
                  OVER (PARTITION BY c.stream ORDER BY c.revision ROWS UNBOUNDED PRECEDING)
           FROM c
          ORDER BY c.j
       )
       SELECT ws.stream, ws.cur::text AS revision FROM ws WHERE ws.fresh AND ws.cur <> -1 LIMIT 1`,
    );
    const taken = r.rows[0];
    if (taken) throw new WrongExpectedRevisionError(taken.stream, 'no_stream', Number(taken.revision));
  }

  private async callAppend(q: Queryable, writes: StreamWrite[], args: AppendArguments = appendArguments(writes)): Promise<AppendResult> {
    let rows: AppendRow[];
    const meta = repeatedJsonbArray(args.meta, 8);
    try {
      rows = (
        await q.query<AppendRow>(
          `SELECT * FROM vac_append($1::text[], $2::bigint[], $3::int[], $4::uuid[], $5::text[], $6::int[], ${jsonbArray(7)}, ${meta.sql})`,
          [args.streams, args.expected, args.counts, args.ids, args.types, args.versions, JSON.stringify(args.data), meta.param],
        )
      ).rows;
    } catch (err) {
      const e = err as { message?: string; detail?: string };
      if (e.message === 'wrong_expected_revision') {
        const d = JSON.parse(e.detail ?? '{}') as { stream: string; actual: number };
        throw conflict(writes, d.stream, Number(d.actual));
      }
      if (e.message === 'duplicate_event_ids') throw new DuplicateEventIdError(`${e.detail} event ids are already stored`);
      throw err;
    }
    return this.settle(writes, { status: rows[0]?.out_replayed ? 'replayed' : 'ok', rows });
  }

  private async settle(writes: StreamWrite[], outcome: GroupOutcome): Promise<AppendResult> {
    switch (outcome.status) {
      case 'conflict':
        throw conflict(writes, outcome.stream, outcome.actual);
      case 'duplicate':
        throw outcome.error;
      case 'replayed':
        return idempotentResult(
          outcome.rows.map((r) => ({ stream: r.out_stream, revision: r.out_revision, position: r.out_position!, tx_id: r.out_tx! })),
          writes,
        );
      default:
        return this.appended(outcome.rows);
    }
  }

  /** The result of an append from its rows (one per write); the head when it wrote no event. */
  private async appended(
    rows: { out_stream: string; out_revision: string; out_position: string | null; out_tx: string | null }[],
  ): Promise<AppendResult> {
    let last: Position | undefined;
    for (const r of rows) {
      if (r.out_position === null) continue;
      const p = { commit: BigInt(r.out_tx!), prepare: BigInt(r.out_position) };
      if (!last || p.prepare > last.prepare) last = p;
    }
    return {
      revisions: rows.map((r) => ({ stream: r.out_stream, revision: Number(r.out_revision) })),
      position: last ?? (await this.headPosition()),
    };
  }

  async readStream(stream: string, opts: { fromRevision?: number } = {}): Promise<StoredEvent[]> {
    const r = await this.db.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE stream = $1 AND revision >= $2 ORDER BY events.revision`,
      [stream, opts.fromRevision ?? 0],
      // Parsing and planning it was a quarter of a stream's read.
      { prepare: true },
    );
    return r.rows.map(storedFromRow);
  }

  async readStreams(requests: { stream: string; fromRevision: number }[]): Promise<Map<string, StoredEvent[]>> {
    const out = new Map<string, StoredEvent[]>(requests.map((r) => [r.stream, []]));
    if (requests.length === 0) return out;
    const r = await this.db.query<EventRow>(
      // A lateral subquery fenced by OFFSET 0, so that each stream is an index range scan: as a
      // plain join, the planner (misjudging unnest at 10 rows) picks a hash join over the whole log.
      `SELECT ${COLUMNS}
         FROM unnest($1::text[], $2::bigint[]) AS wanted(stream, from_revision)
         CROSS JOIN LATERAL (
           SELECT * FROM events e
            WHERE e.stream = wanted.stream AND e.revision >= wanted.from_revision OFFSET 0
         ) AS events
        ORDER BY events.stream, events.revision`,
      [requests.map((q) => q.stream), requests.map((q) => q.fromRevision)],
      { prepare: true },
    );
    for (const row of r.rows) out.get(row.stream)?.push(storedFromRow(row));
    return out;
  }

  async readAll({ after, limit, types }: ReadAllOptions): Promise<StoredEvent[]> {
    const params: unknown[] = [after.commit.toString(), after.prepare.toString(), limit];
    if (types) return this.walkingTheKey(TYPED_LOG_PAGE, [...params, types]);
    const r = await this.db.query<EventRow>(LOG_PAGE, params, { prepare: true });
    return r.rows.map(storedFromRow);
  }

  async readByStream({ after, upTo, types, limit }: ReadByStreamOptions): Promise<StoredEvent[]> {
    return this.walkingTheKey(BY_STREAM_PAGE, [
      after?.stream ?? '',
      after?.revision ?? -1,
      types,
      upTo.commit.toString(),
      upTo.prepare.toString(),
      limit,
    ]);
  }

  /** A page query run under KEY_WALK_PLAN, in a transaction of its own that the settings end with. */
  private async walkingTheKey(sql: string, params: unknown[]): Promise<StoredEvent[]> {
    const r = await this.db.transaction(async (tx) => {
      await tx.exec(KEY_WALK_PLAN);
      return tx.query<EventRow>(sql, params);
    });
    return r.rows.map(storedFromRow);
  }

  async headPosition(): Promise<Position> {
    const r = await this.db.query<{ tx_id: string; position: string }>(
      `SELECT tx_id::text, position::text FROM events WHERE ${VISIBLE} ORDER BY events.tx_id DESC, events.position DESC LIMIT 1`,
    );
    const row = r.rows[0];
    return row ? { commit: BigInt(row.tx_id), prepare: BigInt(row.position) } : { commit: 0n, prepare: 0n };
  }

  async countAfter(after: Position, opts: { upTo?: number; types?: readonly string[] } = {}): Promise<number> {
    const params: unknown[] = [after.commit.toString(), after.prepare.toString()];
    const typed = opts.types ? ` AND events.type = ANY ($${opts.upTo === undefined ? 3 : 4}::text[])` : '';
    const range = `FROM events WHERE (tx_id, position) > ($1::text::xid8, $2::bigint) AND ${VISIBLE}${typed}`;
    // Bounded, the count walks the log's (tx_id, position) index from the checkpoint and stops:
    // a lag of none is one index probe. Unbounded (a rebuild's total), the planner may read it
    // any way it likes, in parallel workers too.
    const r =
      opts.upTo === undefined
        ? await this.db.query<{ n: string }>(`SELECT count(*)::text AS n ${range}`, opts.types ? [...params, opts.types] : params)
        : await this.db.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM (SELECT ${range} ORDER BY events.tx_id, events.position LIMIT $3) AS pending`,
            opts.types ? [...params, opts.upTo, opts.types] : [...params, opts.upTo],
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

/** The answer to a repeat, from its stored events' rows; revisions in the order of `writes`. */
function idempotentResult(rows: StoredIdRow[], writes?: StreamWrite[]): AppendResult {
  const byStream = new Map<string, number>(writes?.filter((w) => w.events.length > 0).map((w) => [w.stream, -1]));
  let last: Position = { commit: 0n, prepare: 0n };
  for (const r of rows) {
    byStream.set(r.stream, Math.max(byStream.get(r.stream) ?? -1, Number(r.revision)));
    const p = { commit: BigInt(r.tx_id), prepare: BigInt(r.position) };
    if (p.prepare > last.prepare) last = p;
  }
  return { revisions: [...byStream].map(([stream, revision]) => ({ stream, revision })), position: last };
}

function conflict(writes: StreamWrite[], stream: string, actual: number): WrongExpectedRevisionError {
  const w = writes.find((x) => x.stream === stream) ?? writes[0]!;
  return new WrongExpectedRevisionError(stream, w.expectedRevision, actual < 0 ? 'no_stream' : actual);
}
