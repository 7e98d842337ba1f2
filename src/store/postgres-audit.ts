import type { Db, Queryable } from '../db/types.ts';
import type { AuditLog, EventsQuery, FaultyLink, HeadLink, LogSnapshot, ShortStream, StreamScope } from './audit-log-types.ts';
import { COLUMNS, storedFromRow, type EventRow } from './postgres-store.ts';
import type { Position, StoredEvent } from './types.ts';

/** Events checked per query (a few megabytes of rows, checked by the server). */
const CHUNK = 50_000;
/** Rows fetched at a time from a cursor: a few megabytes at most. */
const FETCH = 1_000;
/** Stream heads fetched at a time (three short columns each). */
const HEADS_FETCH = 10_000;
/** Connections that check parts side by side on a server (PGlite has one). */
const SERVER_WORKERS = 2;

/** A part of the streams one connection checks: a range of names, or names given. */
type Part = { from: string; to?: string } | { names: string[] };

interface LinkRow {
  stream: string;
  revision: string;
  prev_revision: string;
  expected: string;
  found: string;
}

/** The audit's reads of the events and streams tables (see AuditLog). */
export class PostgresAuditLog implements AuditLog {
  constructor(private readonly db: Db) {}

  async size(scope: StreamScope): Promise<{ streams: number; events: number }> {
    const named = scope.all ? undefined : scope.streams;
    const r = await this.db.query<{ streams: string; events: string }>(
      `SELECT count(*)::text AS streams, coalesce(sum(s.revision + 1), 0)::text AS events FROM streams s
        WHERE s.revision >= 0 ${named ? 'AND s.stream = ANY($1::text[])' : ''}`,
      named ? [named] : [],
    );
    return { streams: Number(r.rows[0]?.streams ?? 0), events: Number(r.rows[0]?.events ?? 0) };
  }

  async firstFaultyLinks(scope: StreamScope, checked: (events: number) => void): Promise<FaultyLink[]> {
    const workers = this.db.kind === 'postgres' ? SERVER_WORKERS : 1;
    const parts: Part[] = scope.all
      ? await this.nameRanges((await this.size(scope)).streams, workers)
      : Array.from({ length: Math.min(workers, scope.streams.length) }, (_, k) => ({
          names: scope.streams.filter((_, i) => i % workers === k),
        }));
    const found = await Promise.all(parts.map((part) => checkPart(this.db, part, checked)));
    return found.flat();
  }

  async shortStreams(scope: StreamScope): Promise<ShortStream[]> {
    const named = scope.all ? undefined : scope.streams;
    const r = await this.db.query<{ stream: string; claimed: string; last: string | null; hash: string | null }>(
      `SELECT s.stream, s.revision::text AS claimed, l.revision::text AS last, encode(l.hash, 'hex') AS hash
         FROM streams s
         LEFT JOIN LATERAL (SELECT e.revision, e.hash FROM events e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1) l ON true
        WHERE s.revision >= 0 AND (l.revision IS NULL OR l.revision < s.revision) ${named ? 'AND s.stream = ANY($1::text[])' : ''}
        ORDER BY s.stream`,
      named ? [named] : [],
    );
    return r.rows.map((row) => ({
      stream: row.stream,
      reached: Number(row.claimed),
      last: row.last === null ? -1 : Number(row.last),
      hash: row.hash ?? '',
    }));
  }

  async heads(at: Position, each: (h: HeadLink) => void): Promise<void> {
    // A cursor: the heads of every stream, a page at a time, in the byte order of their names.
    await this.db.transaction(async (tx) => {
      await tx.query(
        `DECLARE audit_heads NO SCROLL CURSOR FOR
           SELECT h.stream, h.revision::text AS revision, encode(e.hash, 'hex') AS hash
             FROM (SELECT stream, max(revision) AS revision FROM events
                    WHERE (tx_id, position) <= ('${at.commit}'::xid8, ${at.prepare}::bigint)
                    GROUP BY stream) h
             JOIN events e ON e.stream = h.stream AND e.revision = h.revision
            ORDER BY h.stream COLLATE "C"`,
      );
      for (;;) {
        const rows = (await tx.query<{ stream: string; revision: string; hash: string }>(`FETCH ${HEADS_FETCH} FROM audit_heads`)).rows;
        for (const r of rows) each({ stream: r.stream, revision: Number(r.revision), hash: r.hash });
        if (rows.length < HEADS_FETCH) break;
      }
    });
  }

  snapshot<T>(read: (s: LogSnapshot) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
      return read(new PostgresSnapshot(tx));
    });
  }

  /** `workers` ranges of stream names holding about as many streams each. */
  private async nameRanges(streams: number, workers: number): Promise<Part[]> {
    const bounds: string[] = [];
    for (let k = 1; k < workers && streams > workers; k++) {
      const r = await this.db.query<{ stream: string }>('SELECT stream FROM streams ORDER BY stream OFFSET $1 LIMIT 1', [
        Math.floor((streams * k) / workers),
      ]);
      if (r.rows[0] && r.rows[0].stream !== bounds.at(-1)) bounds.push(r.rows[0].stream);
    }
    return [...bounds, undefined].map((to, k) => ({ from: k === 0 ? '' : bounds[k - 1]!, to }));
  }
}

/**
 * One part's events, chunk after chunk in the order of the (stream, revision) index: each chunk
 * is first bounded by its last event (an index scan), then checked in the database, each event
 * against the hash stored before it (the last of the chunk before, for the first). Returns the
 * first faulty link of each stream.
 */
async function checkPart(db: Queryable, part: Part, checked: (events: number) => void): Promise<FaultyLink[]> {
  const faults: FaultyLink[] = [];
  const faulty = new Set<string>();
  const where = 'names' in part ? 'e.stream = ANY($3::text[])' : part.to !== undefined ? 'e.stream < $3' : 'true';
  const bound = 'names' in part ? [part.names] : part.to !== undefined ? [part.to] : [];
  let after = { stream: 'names' in part ? '' : part.from, revision: -1, hash: '' };
  for (;;) {
    const last = (
      await db.query<{ stream: string; revision: string; hash: string }>(
        `SELECT e.stream, e.revision::text, encode(e.hash, 'hex') AS hash FROM events e
          WHERE (e.stream, e.revision) > ($1::text, $2::bigint) AND ${where}
          ORDER BY e.stream, e.revision OFFSET ${CHUNK - 1} LIMIT 1`,
        [after.stream, after.revision, ...bound],
      )
    ).rows[0];
    // Read in the index's order (no sort): the chunk up to `last`, or the rest of the part.
    const rows = (
      await db.query<LinkRow>(
        `SELECT l.stream, l.revision::text, l.prev_revision::text, encode(l.expected, 'hex') AS expected, encode(l.hash, 'hex') AS found
           FROM (
             SELECT c.stream, c.revision, c.hash,
                    coalesce(lag(c.revision) OVER w, CASE WHEN c.stream = $1 THEN $2::bigint END, -1) AS prev_revision,
                    sha256(coalesce(lag(c.hash) OVER w,
                                    CASE WHEN c.stream = $1 THEN decode(${'$'}${bound.length + 3}, 'hex') END, ''::bytea)
                           || vac_event_canonical(c.stream, c.revision, c.type, c.version, c.data, c.metadata)) AS expected
               FROM (
                 SELECT e.stream, e.revision, e.type, e.version, e.data, e.metadata, e.hash FROM events e
                  WHERE (e.stream, e.revision) > ($1::text, $2::bigint) AND ${where}
                  ORDER BY e.stream, e.revision ${last ? `LIMIT ${CHUNK}` : ''}
               ) c
             WINDOW w AS (PARTITION BY c.stream ORDER BY c.revision)
           ) l
          WHERE l.expected <> l.hash OR l.prev_revision <> l.revision - 1
          ORDER BY l.stream, l.revision`,
        [after.stream, after.revision, ...bound, after.hash],
      )
    ).rows;
    for (const r of rows) {
      if (faulty.has(r.stream)) continue;
      faulty.add(r.stream);
      faults.push({
        stream: r.stream,
        revision: Number(r.revision),
        previous: Number(r.prev_revision),
        expected: r.expected,
        found: r.found,
      });
    }
    if (!last) {
      const rest = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM events e WHERE (e.stream, e.revision) > ($1::text, $2::bigint) AND ${where}`,
        [after.stream, after.revision, ...bound],
      );
      checked(Number(rest.rows[0]!.n));
      return faults;
    }
    checked(CHUNK);
    after = { stream: last.stream, revision: Number(last.revision), hash: last.hash };
  }
}

/** The selection of a snapshot: a temporary table of stream names, dropped at its end. */
const SELECTION = 'audit_selection';

class PostgresSnapshot implements LogSnapshot {
  private selection = false;
  private cursors = 0;

  constructor(readonly tx: Queryable) {}

  async readStreams(streams: string[]): Promise<Map<string, StoredEvent[]>> {
    const out = new Map<string, StoredEvent[]>(streams.map((s) => [s, []]));
    if (streams.length === 0) return out;
    const r = await this.tx.query<EventRow>(
      `SELECT ${COLUMNS} FROM events WHERE events.stream = ANY($1::text[]) ORDER BY events.stream, events.revision`,
      [streams],
    );
    for (const row of r.rows) out.get(row.stream)!.push(storedFromRow(row));
    return out;
  }

  async streamsNamed(prefix: string): Promise<string[]> {
    const r = await this.tx.query<{ stream: string }>(
      'SELECT stream FROM streams WHERE left(stream, length($1)) = $1 ORDER BY stream COLLATE "C"',
      [prefix],
    );
    return r.rows.map((row) => row.stream);
  }

  async select(streams: string[]): Promise<void> {
    await this.ensureSelection();
    if (streams.length > 0)
      await this.tx.query(`INSERT INTO ${SELECTION} (stream) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [streams]);
  }

  async count(q: EventsQuery): Promise<number> {
    await this.ensureSelection();
    const r = await this.tx.query<{ n: string }>(`SELECT count(*)::text AS n ${this.from(q)}`);
    return Number(r.rows[0]!.n);
  }

  async events(q: EventsQuery, each: (e: StoredEvent) => Promise<void>): Promise<void> {
    await this.ensureSelection();
    const cursor = `audit_events_${++this.cursors}`;
    await this.tx.query(
      `DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${COLUMNS} ${this.from(q)} ORDER BY events.stream COLLATE "C", events.revision`,
    );
    for (;;) {
      const rows = (await this.tx.query<EventRow>(`FETCH ${FETCH} FROM ${cursor}`)).rows;
      for (const r of rows) await each(storedFromRow(r));
      if (rows.length < FETCH) break;
    }
    await this.tx.query(`CLOSE ${cursor}`);
  }

  /**
   * The events a query names. As of a time, each stream up to its last event recorded at or
   * before it (to the millisecond, as the service reads recording times), with every revision
   * before that one: see EventsQuery.asOf.
   */
  private from(q: EventsQuery): string {
    const selected = (alias: string) => (q.which === 'selected' ? `JOIN ${SELECTION} ON ${SELECTION}.stream = ${alias}.stream` : '');
    if (q.asOf !== undefined && !Number.isFinite(q.asOf)) throw new RangeError(`not a time: ${q.asOf}`);
    if (q.asOf === undefined) return `FROM events ${selected('events')}`;
    return `FROM events ${selected('events')}
      JOIN (SELECT c.stream, max(c.revision) AS last FROM events c ${selected('c')}
             WHERE date_trunc('milliseconds', c.recorded_at) <= '${new Date(q.asOf).toISOString()}'::timestamptz
             GROUP BY c.stream) cut ON cut.stream = events.stream AND events.revision <= cut.last`;
  }

  private async ensureSelection(): Promise<void> {
    if (this.selection) return;
    await this.tx.query(`CREATE TEMP TABLE ${SELECTION} (stream text PRIMARY KEY) ON COMMIT DROP`);
    this.selection = true;
  }
}
