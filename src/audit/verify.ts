import type { Db, Queryable } from '../db/types.ts';
import { START, type EventStore } from '../store/types.ts';
import { ChainChecker, type ChainBreak } from './chain-check.ts';

/** What a verification covers: every stream, or the streams named. */
export type VerifyScope = { all: true } | { all?: false; streams: string[] };

export interface VerifyReport {
  events: number;
  streams: number;
  /** The first break of each broken stream, in the order the streams were checked. */
  breaks: ChainBreak[];
  ms: number;
}

export interface VerifyProgress {
  done: number;
  total: number;
}

/** Events read per query on PostgreSQL (a few megabytes of rows, checked by the server). */
const CHUNK = 50_000;
/** Events read per page of the log elsewhere. */
const PAGE = 2_000;

/**
 * Recomputes the hash chains of a scope and reports the first break of every broken stream. On
 * PostgreSQL and PGlite the database recomputes every link itself (one pass over the events in
 * index order, checking each event against the hash stored before it), and also checks that
 * each stream's newest event is still there; elsewhere the events are read and checked here.
 */
export async function verifyChains(
  store: EventStore,
  /** The database of a PostgreSQL store (unused by others). */
  db: Db | undefined,
  scope: VerifyScope,
  onProgress?: (p: VerifyProgress) => void,
): Promise<VerifyReport> {
  const t0 = performance.now();
  const r = db && store.logDatabase() ? await verifyInDatabase(db, scope, onProgress) : await verifyFromStore(store, scope, onProgress);
  return { ...r, ms: performance.now() - t0 };
}

interface LinkRow {
  stream: string;
  revision: string;
  prev_revision: string;
  expected: string;
  found: string;
}

/** A part of the streams one connection checks: a range of names, or names given. */
type Part = { from: string; to?: string } | { names: string[] };

/** Connections that check parts side by side on a server (PGlite has one). */
const SERVER_WORKERS = 2;

async function verifyInDatabase(db: Db, scope: VerifyScope, onProgress?: (p: VerifyProgress) => void): Promise<Omit<VerifyReport, 'ms'>> {
  const named = scope.all ? undefined : scope.streams;
  const only = named ? 'AND s.stream = ANY($1::text[])' : '';
  const size = await db.query<{ streams: string; events: string }>(
    `SELECT count(*)::text AS streams, coalesce(sum(s.revision + 1), 0)::text AS events FROM streams s WHERE s.revision >= 0 ${only}`,
    named ? [named] : [],
  );
  const streams = Number(size.rows[0]?.streams ?? 0);
  const total = Number(size.rows[0]?.events ?? 0);

  const workers = db.kind === 'postgres' ? SERVER_WORKERS : 1;
  const parts: Part[] = named
    ? Array.from({ length: Math.min(workers, named.length) }, (_, k) => ({ names: named.filter((_, i) => i % workers === k) }))
    : await nameRanges(db, streams, workers);
  let done = 0;
  const found = await Promise.all(
    parts.map((part) =>
      verifyPart(db, part, (n) => {
        done += n;
        onProgress?.({ done, total: Math.max(total, done) });
      }),
    ),
  );
  const breaks: ChainBreak[] = found.flat();
  const broken = new Set(breaks.map((b) => b.stream));

  // The newest events of a stream, removed together with nothing after them to break a link.
  const cut = await db.query<{ stream: string; claimed: string; last: string | null; hash: string | null }>(
    `SELECT s.stream, s.revision::text AS claimed, l.revision::text AS last, encode(l.hash, 'hex') AS hash
       FROM streams s
       LEFT JOIN LATERAL (SELECT e.revision, e.hash FROM events e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1) l ON true
      WHERE s.revision >= 0 AND (l.revision IS NULL OR l.revision < s.revision) ${only}
      ORDER BY s.stream`,
    named ? [named] : [],
  );
  for (const r of cut.rows) {
    if (broken.has(r.stream)) continue;
    const last = r.last === null ? -1 : Number(r.last);
    breaks.push({
      stream: r.stream,
      revision: last + 1,
      kind: 'truncated',
      expected: '',
      found: r.hash ?? '',
      previous: Number(r.claimed),
    });
  }
  return { events: done, streams, breaks };
}

/** `workers` ranges of stream names holding about as many streams each. */
async function nameRanges(db: Queryable, streams: number, workers: number): Promise<Part[]> {
  const bounds: string[] = [];
  for (let k = 1; k < workers && streams > workers; k++) {
    const r = await db.query<{ stream: string }>('SELECT stream FROM streams ORDER BY stream OFFSET $1 LIMIT 1', [
      Math.floor((streams * k) / workers),
    ]);
    if (r.rows[0] && r.rows[0].stream !== bounds.at(-1)) bounds.push(r.rows[0].stream);
  }
  return [...bounds, undefined].map((to, k) => ({ from: k === 0 ? '' : bounds[k - 1]!, to }));
}

/**
 * One part's events, chunk after chunk in the order of the (stream, revision) index: each chunk
 * is first bounded by its last event (an index scan), then checked in the database, each event
 * against the hash stored before it (the last of the chunk before, for the first). Returns the
 * first break of each broken stream.
 */
async function verifyPart(db: Queryable, part: Part, counted: (events: number) => void): Promise<ChainBreak[]> {
  const breaks: ChainBreak[] = [];
  const broken = new Set<string>();
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
                    sha256(coalesce(lag(c.hash) OVER w, CASE WHEN c.stream = $1 THEN decode(${'$'}${bound.length + 3}, 'hex') END, ''::bytea)
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
      if (broken.has(r.stream)) continue;
      broken.add(r.stream);
      const revision = Number(r.revision);
      const previous = Number(r.prev_revision);
      breaks.push(
        previous !== revision - 1
          ? { stream: r.stream, revision, kind: 'missing', expected: r.expected, found: r.found, previous }
          : { stream: r.stream, revision, kind: 'altered', expected: r.expected, found: r.found },
      );
    }
    if (!last) {
      const rest = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM events e WHERE (e.stream, e.revision) > ($1::text, $2::bigint) AND ${where}`,
        [after.stream, after.revision, ...bound],
      );
      counted(Number(rest.rows[0]!.n));
      return breaks;
    }
    counted(CHUNK);
    after = { stream: last.stream, revision: Number(last.revision), hash: last.hash };
  }
}

async function verifyFromStore(
  store: EventStore,
  scope: VerifyScope,
  onProgress?: (p: VerifyProgress) => void,
): Promise<Omit<VerifyReport, 'ms'>> {
  const checker = new ChainChecker();
  if (scope.all) {
    // The log in its order: each stream's events come in revision order, streams interleaved.
    let after = START;
    for (;;) {
      const page = await store.readAll({ after, limit: PAGE });
      if (page.length === 0) break;
      for (const e of page) checker.check(e);
      after = page.at(-1)!.position;
      onProgress?.({ done: checker.events, total: checker.events });
    }
  } else {
    for (const stream of scope.streams) {
      for (const e of await store.readStream(stream)) checker.check(e);
      onProgress?.({ done: checker.events, total: checker.events });
    }
  }
  return { events: checker.events, streams: checker.streams, breaks: checker.breaks };
}
