import type { Db } from './types.ts';
import { APPEND_LOCK as APPEND_LOCK_KEY, MIGRATION_LOCK } from './advisory-locks.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * What every version of vac_append begins with: its signature, then the append-lock check, the
 * lock itself, and the answer to a retried append (all its event ids already stored). Shared so
 * that the versions cannot drift apart; the SQL of an applied migration must not change.
 */
const APPEND_SIGNATURE = `
      CREATE OR REPLACE FUNCTION vac_append(
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text, out_replayed boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        n_ids integer := coalesce(array_length(p_ids, 1), 0);
        n_existing integer;`.slice(1);

const APPEND_LOCK = `
        -- Appending transactions hold this lock from before their first write until they end,
        -- which is how readers tell them apart from every other open transaction (see the
        -- PostgreSQL store's readAll). One that already wrote without it is refused.
        IF pg_current_xact_id_if_assigned() IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM pg_locks l
          WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.classid = ${APPEND_LOCK_KEY.namespace} AND l.objid = ${APPEND_LOCK_KEY.id} AND l.objsubid = 2
        ) THEN
          RAISE EXCEPTION 'append_lock_late' USING DETAIL = 'take the append lock (vac_claim_append) before the transaction''s first write';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${APPEND_LOCK_KEY.namespace}, ${APPEND_LOCK_KEY.id});
`;

const APPEND_PRELUDE = `${APPEND_LOCK}        IF n_ids > 0 THEN
          SELECT count(*) INTO n_existing FROM events WHERE event_id = ANY (p_ids);
          IF n_existing = n_ids THEN
            RETURN QUERY SELECT e.stream, max(e.revision), max(e.position), max(e.tx_id::text), true
              FROM events e WHERE e.event_id = ANY (p_ids) GROUP BY e.stream;
            RETURN;
          ELSIF n_existing > 0 THEN
            RAISE EXCEPTION 'duplicate_event_ids' USING DETAIL = n_existing || ' of ' || n_ids;
          END IF;
        END IF;`;

/** vac_append_batch's signature, up to its declarations. */
const BATCH_SIGNATURE = `
      CREATE OR REPLACE FUNCTION vac_append_batch(
        p_writes integer[],
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_append integer, out_stream text, out_revision bigint, out_position bigint, out_tx text, out_status text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
`.slice(1);

/** vac_append_batch's last declarations, lock, and claim and lock of every stream of the group. */
const GROUP_CLAIMED = `        n_existing integer;
        bad record;
      BEGIN
${APPEND_LOCK}        -- Every stream of the group claimed and locked up front, in name order, as vac_append does.
        INSERT INTO streams (stream, revision)
          SELECT DISTINCT u, -1 FROM unnest(p_streams) AS u ORDER BY u ON CONFLICT (stream) DO NOTHING;
        PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream FOR UPDATE;
`;

/**
 * vac_append_batch (migration 9, and again in 10): its signature, declarations, lock, and the
 * claim and lock of every stream of the group; then the loop that takes the appends one after the
 * other. Shared so that the versions cannot drift apart.
 */
const GROUP_HEAD = `
${BATCH_SIGNATURE}        a integer;
        w0 integer := 0;
        e0 integer := 0;
        nw integer;
        ne integer;
${GROUP_CLAIMED}`.slice(1);

const GROUP_LOOP = `
        FOR a IN 1 .. coalesce(array_length(p_writes, 1), 0) LOOP
          nw := p_writes[a];
          SELECT coalesce(sum(c), 0)::integer INTO ne FROM unnest(p_counts[w0 + 1 : w0 + nw]) AS c;
          n_existing := 0;
          IF ne > 0 THEN
            SELECT count(*) INTO n_existing FROM events WHERE event_id = ANY (p_ids[e0 + 1 : e0 + ne]);
          END IF;
          IF ne > 0 AND n_existing = ne THEN
            RETURN QUERY SELECT a, e.stream, max(e.revision), max(e.position), max(e.tx_id::text), 'replayed'::text
              FROM events e WHERE e.event_id = ANY (p_ids[e0 + 1 : e0 + ne]) GROUP BY e.stream;
          ELSIF n_existing > 0 THEN
            RETURN QUERY SELECT a, NULL::text, n_existing::bigint, ne::bigint, NULL::text, 'duplicate'::text;
          ELSE
            SELECT w.stream, s.revision AS actual INTO bad
              FROM unnest(p_streams[w0 + 1 : w0 + nw], p_expected[w0 + 1 : w0 + nw]) WITH ORDINALITY AS w(stream, exp, i)
              JOIN streams s ON s.stream = w.stream
             WHERE (w.exp = -1 AND s.revision <> -1) OR (w.exp = -3 AND s.revision = -1) OR (w.exp >= 0 AND s.revision <> w.exp)
             ORDER BY w.i LIMIT 1;
            IF FOUND THEN
              RETURN QUERY SELECT a, bad.stream, bad.actual, NULL::bigint, NULL::text, 'conflict'::text;
            ELSE
              RETURN QUERY
                WITH w AS (
                  SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::integer AS offs, s.revision AS cur
                    FROM unnest(p_streams[w0 + 1 : w0 + nw], p_counts[w0 + 1 : w0 + nw]) WITH ORDINALITY AS u(stream, n, i)
                    JOIN streams s ON s.stream = u.stream
                ), ins AS (
                  INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                  SELECT p_ids[e0 + w.offs + k], w.stream, w.cur + k, p_types[e0 + w.offs + k], p_versions[e0 + w.offs + k],
                         p_data[e0 + w.offs + k], p_meta[e0 + w.offs + k]
                    FROM w CROSS JOIN LATERAL generate_series(1, w.n) AS k
                   ORDER BY w.i, k
                  RETURNING events.stream, events.position
                ), upd AS (
                  UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
                ), last AS (
                  SELECT ins.stream, max(ins.position) AS position FROM ins GROUP BY ins.stream
                )
                SELECT a, w.stream, w.cur + w.n, last.position, pg_current_xact_id()::text, 'ok'::text
                  FROM w LEFT JOIN last ON last.stream = w.stream
                 ORDER BY w.i;
            END IF;
          END IF;
          w0 := w0 + nw;
          e0 := e0 + ne;
        END LOOP;
`.slice(1);

/**
 * Versioned, forward-only migrations. Each runs once, in its own transaction, and is recorded in
 * schema_migrations; re-running `migrate` is a no-op. Never edit a released migration: add one.
 */

/**
 * The checks of vac_append_batch's one-statement way (versions 10, 12 and 15), as CTEs: each
 * write with its append, current revision and place among the events (`wr`, `chk`), the first
 * wrong expectation of each append (`failed`), and the writes of the others (`ok`).
 */
const groupChecks = (pad: string, offsetType: string): string =>
  `
WITH wr AS (
  SELECT u.i, u.a, u.stream, u.exp, u.n, (sum(u.n) OVER (ORDER BY u.i) - u.n)::${offsetType} AS eoffs
    FROM unnest(p_streams, p_expected, p_counts, v_app) WITH ORDINALITY AS u(stream, exp, n, a, i)
), chk AS (
  -- A lateral lookup fenced by OFFSET 0: one index probe per write, whatever the
  -- planner believes about the size of streams.
  SELECT wr.*, s.revision AS cur,
         (wr.exp = -1 AND s.revision <> -1) OR (wr.exp = -3 AND s.revision = -1) OR (wr.exp >= 0 AND s.revision <> wr.exp) AS bad
    FROM wr CROSS JOIN LATERAL (SELECT streams.revision FROM streams WHERE streams.stream = wr.stream OFFSET 0) s
), failed AS (
  SELECT DISTINCT ON (chk.a) chk.a, chk.i, chk.stream, chk.cur FROM chk WHERE chk.bad ORDER BY chk.a, chk.i
), ok AS (
  SELECT chk.*, (sum(chk.n) OVER (PARTITION BY chk.stream ORDER BY chk.i) - chk.n)::bigint AS soffs
    FROM chk WHERE chk.a NOT IN (SELECT failed.a FROM failed)`
    .slice(1)
    .split('\n')
    .map((l) => pad + l)
    .join('\n');

/**
 * vac_append_batch's way for a group whose appends cannot affect each other (migration 10, and
 * again in 12): every check, insert and update of the group in one statement. `answer` is the
 * CTE that gives each write its revision and last position.
 */
const groupFastPath = (answer: string): string => `
        IF NOT EXISTS (SELECT 1 FROM events WHERE event_id = ANY (p_ids)) THEN
          DECLARE
            -- The append each write belongs to.
            v_app integer[] := '{}';
          BEGIN
            FOR a IN 1 .. coalesce(array_length(p_writes, 1), 0) LOOP
              v_app := v_app || array_fill(a, ARRAY[p_writes[a]]);
            END LOOP;
            IF NOT EXISTS (
              SELECT 1 FROM unnest(p_streams, p_expected, v_app) AS u(stream, exp, a)
               GROUP BY u.stream HAVING count(DISTINCT u.a) > 1 AND bool_or(u.exp <> -2)
            ) THEN
              RETURN QUERY
${groupChecks('                ', 'integer')}
                ), ins AS (
                  INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                  SELECT p_ids[ok.eoffs + k], ok.stream, ok.cur + ok.soffs + k, p_types[ok.eoffs + k], p_versions[ok.eoffs + k],
                         p_data[ok.eoffs + k], p_meta[ok.eoffs + k]
                    FROM ok CROSS JOIN LATERAL generate_series(1, ok.n) AS k
                   ORDER BY ok.i, k
                  RETURNING events.stream, events.revision, events.position
                ), upd AS (
                  UPDATE streams s SET revision = t.cur + t.total
                    FROM (SELECT ok.stream, min(ok.cur) AS cur, sum(ok.n) AS total FROM ok GROUP BY ok.stream) t
                   WHERE s.stream = ANY (p_streams) AND s.stream = t.stream AND t.total > 0
${answer}                  UNION ALL
                  SELECT failed.a, failed.i, failed.stream, failed.cur, NULL::bigint, NULL::text, 'conflict'::text FROM failed
                )
                SELECT answers.a::integer, answers.stream, answers.revision, answers.position, answers.tx, answers.status
                  FROM answers ORDER BY answers.a, answers.i;
              RETURN;
            END IF;
          END;
        END IF;
`.slice(1);

/** Version 10's answer: a correlated lookup into the inserted rows, one scan of them per write. */
const ANSWER_SCANNED = `
                ), answers AS (
                  SELECT ok.a, ok.i, ok.stream, ok.cur + ok.soffs + ok.n AS revision,
                         (SELECT max(ins.position) FROM ins
                           WHERE ins.stream = ok.stream AND ins.revision > ok.cur + ok.soffs AND ins.revision <= ok.cur + ok.soffs + ok.n) AS position,
                         pg_current_xact_id()::text AS tx, 'ok'::text AS status
                    FROM ok
`.slice(1);

/**
 * Version 12's answer: a write's last position is that of its last revision, found by a join,
 * so a group's cost grows with its size instead of with its size squared.
 */
const ANSWER_JOINED = `
                ), answers AS (
                  SELECT ok.a, ok.i, ok.stream, ok.cur + ok.soffs + ok.n AS revision, ins.position,
                         pg_current_xact_id()::text AS tx, 'ok'::text AS status
                    FROM ok LEFT JOIN ins ON ok.n > 0 AND ins.stream = ok.stream AND ins.revision = ok.cur + ok.soffs + ok.n
`.slice(1);

/**
 * Version 15's way of writing a set of writes: one row per event slot (its stream and revision,
 * numbered by its place in the event arrays), joined to the events unnested side by side on that
 * number. A subscript such as `p_data[k]` walks a variable-length array from its start on every
 * call, so the versions before wrote n events in time n²; here every array is read once, in order.
 * `writes` is a relation of (stream, n, i, cur, soffs, eoffs): the write's events are those after
 * `eoffs` in the event arrays, and its revisions follow `cur + soffs`. The names `slots` and `ins`
 * (stream, revision, position of every inserted row) are there for what follows.
 */
type InsertEvents = (writes: string, ids: string, types: string, versions: string, data: string, meta: string) => string;

const insertEvents: InsertEvents = (writes: string, ids: string, types: string, versions: string, data: string, meta: string): string => `
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j
                  FROM (${writes}) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta
                  FROM unnest(${ids}, ${types}, ${versions}, ${data}, ${meta}) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                  JOIN slots ON slots.j = e.j
                 ORDER BY e.j
                RETURNING events.stream, events.revision, events.position
              )`.slice(1);

/**
 * insertEvents as version 17 makes it: each event also gets its place in its stream's hash chain
 * (src/store/chain.ts), SHA-256 of the previous event's hash and the event's canonical JSON. The
 * chain of a stream runs over the statement's events in revision order (the vac_chain aggregate
 * as a running window), starting from the hash of the event its first write follows, found by
 * one index probe per write; every array is still read once, in order.
 */
const insertChainedEvents: InsertEvents = (writes, ids, types, versions, data, meta) => `
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j,
                       CASE WHEN k = 1 THEN (SELECT p.hash FROM events p WHERE p.stream = wr.stream AND p.revision = wr.cur + wr.soffs) END AS prev
                  FROM (${writes}) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata, hash)
                SELECT c.id, c.stream, c.revision, c.type, c.version, c.data, c.meta,
                       vac_chain(c.prev, vac_event_canonical(c.stream, c.revision, c.type, c.version, c.data, c.meta))
                         OVER (PARTITION BY c.stream ORDER BY c.revision ROWS UNBOUNDED PRECEDING)
                  FROM (
                    SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta, e.j, slots.prev
                      FROM unnest(${ids}, ${types}, ${versions}, ${data}, ${meta}) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                      JOIN slots ON slots.j = e.j
                  ) AS c
                 ORDER BY c.j
                RETURNING events.stream, events.revision, events.position
              )`.slice(1);

/**
 * Version 15's append of one set of writes after its checks, as vac_append and each append of
 * vac_append_batch's slower way make it: `pre` goes before each answer row's columns, `post` after.
 */
const appendChecked = (insert: InsertEvents, pre: string, post: string, streams: string, counts: string, ids: string, types: string, versions: string, data: string, meta: string): string => `
          RETURN QUERY
            WITH w AS (
              SELECT u.stream, u.n, u.i, s.revision AS cur, 0::bigint AS soffs, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
                FROM unnest(${streams}, ${counts}) WITH ORDINALITY AS u(stream, n, i)
                JOIN streams s ON s.stream = u.stream
            ),
${insert('SELECT * FROM w', ids, types, versions, data, meta)}, upd AS (
              UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
            )
            SELECT ${pre}w.stream, w.cur + w.n, ins.position, pg_current_xact_id()::text, ${post}
              FROM w LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = w.cur + w.n
             ORDER BY w.i;`.slice(1);

/** The first wrong expectation among a set of writes, into `bad`; the streams are locked already. */
const firstConflict = (streams: string, expected: string): string => `
            SELECT w.stream, s.revision AS actual INTO bad
              FROM unnest(${streams}, ${expected}) WITH ORDINALITY AS w(stream, exp, i)
              JOIN streams s ON s.stream = w.stream
             WHERE (w.exp = -1 AND s.revision <> -1) OR (w.exp = -3 AND s.revision = -1) OR (w.exp >= 0 AND s.revision <> w.exp)
             ORDER BY w.i LIMIT 1;`.slice(1);

/** vac_append (versions 8 and 15) up to its streams claimed and locked. */
const APPEND_CLAIMED = `${APPEND_SIGNATURE}
        bad record;
      BEGIN
${APPEND_PRELUDE.slice(1)}
        -- Claim every stream (a row at revision -1 stands for "no stream yet"), then lock them
        -- all, both in name order: two appends never wait on each other in a cycle, and two
        -- creators of one stream meet on its row instead of on an error.
        INSERT INTO streams (stream, revision)
          SELECT u, -1 FROM unnest(p_streams) AS u ORDER BY u ON CONFLICT (stream) DO NOTHING;
        PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream FOR UPDATE;
`;

/**
 * vac_append_any (versions 13 and 15) up to its stream rows moved on: `offs` is the column of each
 * write's offset among the events.
 */
const anyHead = (offs: string): string => `
      CREATE OR REPLACE FUNCTION vac_append_any(
        p_streams text[], p_counts integer[], p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text)
      LANGUAGE plpgsql AS $fn$
      BEGIN
${APPEND_LOCK}        RETURN QUERY
          WITH w AS (
            SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::${offs}
              FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
          ), s AS (
            INSERT INTO streams AS st (stream, revision)
            SELECT w.stream, w.n - 1 FROM w ORDER BY w.stream
            ON CONFLICT (stream) DO UPDATE SET revision = st.revision + excluded.revision + 1
            RETURNING st.stream, st.revision
          )`.slice(1);

/**
 * vac_append, vac_append_batch and vac_append_any as version 15 made them, with `insert` writing
 * the events of a set of writes (insertEvents there; insertChainedEvents from version 17 on).
 */
const linearAppends = (insert: InsertEvents): string => `${APPEND_CLAIMED}${firstConflict('p_streams', 'p_expected')}
        IF FOUND THEN
          RAISE EXCEPTION 'wrong_expected_revision'
            USING DETAIL = json_build_object('stream', bad.stream, 'actual', bad.actual)::text;
        END IF;
${appendChecked(insert, '', 'false', 'p_streams', 'p_counts', 'p_ids', 'p_types', 'p_versions', 'p_data', 'p_meta')}
      END
      $fn$;
      -- CREATE OR REPLACE resets a function's settings: version 11's are set again.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append SET jit = off;

${BATCH_SIGNATURE}        -- The append each write belongs to.
        v_app integer[];
        g record;
        ne integer;
${GROUP_CLAIMED}        SELECT coalesce(array_agg(w.a ORDER BY w.a), '{}') INTO v_app
          FROM unnest(p_writes) WITH ORDINALITY AS w(nw, a) CROSS JOIN LATERAL generate_series(1, w.nw);

        -- The usual group: none of its event ids stored yet, and no stream shared by two appends
        -- unless all of them append with "any". Its appends cannot affect each other's checks, so
        -- every check, insert and update of the group is one statement.
        IF NOT EXISTS (SELECT 1 FROM events WHERE event_id = ANY (p_ids)) AND NOT EXISTS (
          SELECT 1 FROM unnest(p_streams, p_expected, v_app) AS u(stream, exp, a)
           GROUP BY u.stream HAVING count(DISTINCT u.a) > 1 AND bool_or(u.exp <> -2)
        ) THEN
          RETURN QUERY
${groupChecks('            ', 'bigint')}
            ),
${insert('SELECT * FROM ok', 'p_ids', 'p_types', 'p_versions', 'p_data', 'p_meta')}, upd AS (
              UPDATE streams s SET revision = t.cur + t.total
                FROM (SELECT ok.stream, min(ok.cur) AS cur, sum(ok.n) AS total FROM ok GROUP BY ok.stream) t
               WHERE s.stream = ANY (p_streams) AND s.stream = t.stream AND t.total > 0
            ), answers AS (
              SELECT ok.a, ok.i, ok.stream, ok.cur + ok.soffs + ok.n AS revision, ins.position,
                     pg_current_xact_id()::text AS tx, 'ok'::text AS status
                FROM ok LEFT JOIN ins ON ok.n > 0 AND ins.stream = ok.stream AND ins.revision = ok.cur + ok.soffs + ok.n
              UNION ALL
              SELECT failed.a, failed.i, failed.stream, failed.cur, NULL::bigint, NULL::text, 'conflict'::text FROM failed
            )
            SELECT answers.a::integer, answers.stream, answers.revision, answers.position, answers.tx, answers.status
              FROM answers ORDER BY answers.a, answers.i;
          RETURN;
        END IF;

        -- Any other group: append after append, each seeing the writes of those before it, as if
        -- each had committed after the one before. The group is split into its appends' own
        -- arrays in one pass, so each step costs what its own append holds.
        FOR g IN
          WITH wr AS (
            SELECT u.a, array_agg(u.stream ORDER BY u.i) AS streams, array_agg(u.exp ORDER BY u.i) AS expected,
                   array_agg(u.n ORDER BY u.i) AS counts
              FROM unnest(p_streams, p_expected, p_counts, v_app) WITH ORDINALITY AS u(stream, exp, n, a, i)
             GROUP BY u.a
          ), owner AS (
            -- The append each event belongs to.
            SELECT coalesce(array_agg(u.a ORDER BY u.i), '{}') AS apps
              FROM unnest(p_counts, v_app) WITH ORDINALITY AS u(n, a, i) CROSS JOIN LATERAL generate_series(1, u.n)
          ), ev AS (
            SELECT e.a, array_agg(e.id ORDER BY e.j) AS ids, array_agg(e.type ORDER BY e.j) AS types,
                   array_agg(e.version ORDER BY e.j) AS versions, array_agg(e.data ORDER BY e.j) AS data,
                   array_agg(e.meta ORDER BY e.j) AS meta
              FROM owner CROSS JOIN LATERAL unnest(p_ids, p_types, p_versions, p_data, p_meta, owner.apps)
                   WITH ORDINALITY AS e(id, type, version, data, meta, a, j)
             GROUP BY e.a
          )
          SELECT wr.a, wr.streams, wr.expected, wr.counts, ev.ids, ev.types, ev.versions, ev.data, ev.meta
            FROM wr LEFT JOIN ev ON ev.a = wr.a
           ORDER BY wr.a
        LOOP
          ne := coalesce(array_length(g.ids, 1), 0);
          n_existing := 0;
          IF ne > 0 THEN
            SELECT count(*) INTO n_existing FROM events WHERE event_id = ANY (g.ids);
          END IF;
          IF ne > 0 AND n_existing = ne THEN
            RETURN QUERY SELECT g.a::integer, e.stream, max(e.revision), max(e.position), max(e.tx_id::text), 'replayed'::text
              FROM events e WHERE e.event_id = ANY (g.ids) GROUP BY e.stream;
          ELSIF n_existing > 0 THEN
            RETURN QUERY SELECT g.a::integer, NULL::text, n_existing::bigint, ne::bigint, NULL::text, 'duplicate'::text;
          ELSE
${firstConflict('g.streams', 'g.expected')}
            IF FOUND THEN
              RETURN QUERY SELECT g.a::integer, bad.stream, bad.actual, NULL::bigint, NULL::text, 'conflict'::text;
            ELSE
${appendChecked(insert, 'g.a::integer, ', "'ok'::text", 'g.streams', 'g.counts', "coalesce(g.ids, '{}')", "coalesce(g.types, '{}')", "coalesce(g.versions, '{}')", "coalesce(g.data, '{}')", "coalesce(g.meta, '{}')")}
            END IF;
          END IF;
        END LOOP;
      END
      $fn$;
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append_batch SET jit = off;

${anyHead('bigint AS eoffs')},
${insert('SELECT w.stream, w.n, w.i, s.revision - w.n AS cur, 0::bigint AS soffs, w.eoffs FROM w JOIN s ON s.stream = w.stream', 'p_ids', 'p_types', 'p_versions', 'p_data', 'p_meta')}
          SELECT w.stream, s.revision, ins.position, pg_current_xact_id()::text
            FROM w JOIN s ON s.stream = w.stream LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = s.revision
           ORDER BY w.i;
      END
      $fn$;
      ALTER FUNCTION vac_append_any SET jit = off;
`;

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'event store',
    sql: `
      CREATE TABLE events (
        position     bigserial PRIMARY KEY,
        tx_id        xid8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id     uuid NOT NULL UNIQUE,
        stream       text NOT NULL,
        revision     bigint NOT NULL,
        type         text NOT NULL,
        version      integer NOT NULL DEFAULT 1,
        data         jsonb NOT NULL,
        metadata     jsonb NOT NULL DEFAULT '{}'::jsonb,
        recorded_at  timestamptz NOT NULL DEFAULT now(),
        UNIQUE (stream, revision)
      );
      -- readAll walks (tx_id, position): every row below the oldest open transaction is final.
      CREATE INDEX events_tx_position ON events (tx_id, position);
      CREATE TABLE streams (
        stream   text PRIMARY KEY,
        revision bigint NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'reference data',
    sql: `
      CREATE TABLE ref_subgerencias (
        id     text PRIMARY KEY,
        nombre text NOT NULL
      );
      CREATE TABLE ref_company_contracts (
        id                     bigint PRIMARY KEY,
        name                   text NOT NULL,
        has_vacation_params    boolean NOT NULL,
        annual_days            integer,
        annual_days_high_risk  integer,
        min_enjoyed_days       integer,
        advance_allowed        boolean,
        max_advance_days       integer,
        max_people_on_vacation integer
      );
      CREATE TABLE ref_workers (
        id              bigint PRIMARY KEY,
        document_type   text NOT NULL,
        document_number text NOT NULL UNIQUE,
        first_names     text NOT NULL,
        last_names      text NOT NULL
      );
      CREATE TABLE ref_contracts (
        id                  bigint PRIMARY KEY,
        worker_id           bigint NOT NULL REFERENCES ref_workers (id),
        company_contract_id bigint,
        subgerencia_id      text NOT NULL REFERENCES ref_subgerencias (id),
        start_date          date,
        end_date            date,
        settled             boolean NOT NULL,
        additional          boolean NOT NULL,
        base_salary         bigint NOT NULL,
        risk_level          integer
      );
      CREATE INDEX ref_contracts_worker ON ref_contracts (worker_id);
      CREATE TABLE ref_payroll_sheets (
        contract_id        bigint NOT NULL REFERENCES ref_contracts (id),
        period_start       date NOT NULL,
        period_end         date NOT NULL,
        worker_id          bigint NOT NULL REFERENCES ref_workers (id),
        days_worked        integer NOT NULL,
        basic_compensation bigint NOT NULL,
        PRIMARY KEY (contract_id, period_start)
      );
      CREATE INDEX ref_payroll_sheets_worker ON ref_payroll_sheets (worker_id);
      CREATE TABLE ref_users (
        id          bigint PRIMARY KEY,
        email       text NOT NULL,
        name        text NOT NULL,
        is_admin    boolean NOT NULL,
        permissions text[] NOT NULL DEFAULT '{}'
      );
      CREATE UNIQUE INDEX ref_users_email ON ref_users (lower(email));
      -- Bumped by every import so that caches of reference data know when to drop.
      CREATE TABLE ref_version (
        id      integer PRIMARY KEY CHECK (id = 1),
        version bigint NOT NULL
      );
      INSERT INTO ref_version (id, version) VALUES (1, 0);
    `,
  },
  {
    version: 3,
    name: 'api keys',
    sql: `
      CREATE TABLE api_keys (
        id         uuid PRIMARY KEY,
        name       text NOT NULL UNIQUE,
        key_hash   text NOT NULL UNIQUE,
        prefix     text NOT NULL,
        scopes     text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
    `,
  },
  {
    version: 4,
    name: 'vacation record ids',
    sql: `
      -- Numeric record ids (the spec's id, idEliminado) are taken before the append; gaps are fine.
      CREATE SEQUENCE vacation_record_ids START 1;
    `,
  },
  {
    version: 5,
    name: 'projection checkpoints',
    sql: `
      -- Position of the last event each read model has applied, written in the same transaction
      -- as the read model's own rows so that the two never disagree.
      CREATE TABLE projection_checkpoints (
        name        text PRIMARY KEY,
        commit_pos  bigint NOT NULL,
        prepare_pos bigint NOT NULL,
        updated_at  timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
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
    version: 7,
    name: 'one-round-trip append',
    sql: `
      -- The whole multi-stream append in one statement: one round trip instead of one per step.
      -- Expected revisions: n >= 0 exact, -1 no stream, -2 any, -3 stream exists.
      -- vac_claim_append is for transactions that write other rows before appending (the
      -- reference-data import).
      CREATE OR REPLACE FUNCTION vac_claim_append() RETURNS void LANGUAGE sql AS $$
        SELECT pg_advisory_xact_lock_shared(${APPEND_LOCK_KEY.namespace}, ${APPEND_LOCK_KEY.id})
      $$;
${APPEND_SIGNATURE}
        i integer;
        cur bigint;
        exp bigint;
        offs integer := 0;
        last_pos bigint;
        s_name text;
      BEGIN
${APPEND_PRELUDE.slice(1)}
        -- Claim and lock every stream in one pass in name order, new ones included (a row at
        -- revision -1 stands for "no stream yet"), so that two appends never wait on each other
        -- in a cycle and two creators of one stream meet on its row instead of on an error.
        FOR s_name IN SELECT DISTINCT u FROM unnest(p_streams) AS u ORDER BY u LOOP
          INSERT INTO streams (stream, revision) VALUES (s_name, -1) ON CONFLICT (stream) DO NOTHING;
          PERFORM 1 FROM streams s WHERE s.stream = s_name FOR UPDATE;
        END LOOP;
        FOR i IN 1 .. coalesce(array_length(p_streams, 1), 0) LOOP
          SELECT s.revision INTO cur FROM streams s WHERE s.stream = p_streams[i];
          exp := p_expected[i];
          IF (exp = -1 AND cur <> -1) OR (exp = -3 AND cur = -1) OR (exp >= 0 AND cur <> exp) THEN
            RAISE EXCEPTION 'wrong_expected_revision'
              USING DETAIL = json_build_object('stream', p_streams[i], 'actual', cur)::text;
          END IF;
          IF p_counts[i] > 0 THEN
            UPDATE streams SET revision = cur + p_counts[i] WHERE stream = p_streams[i];
            WITH ins AS (
              INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
              SELECT p_ids[offs + k], p_streams[i], cur + k, p_types[offs + k], p_versions[offs + k], p_data[offs + k], p_meta[offs + k]
              FROM generate_series(1, p_counts[i]) AS k ORDER BY k
              RETURNING position
            )
            SELECT max(position) INTO last_pos FROM ins;
          ELSE
            last_pos := NULL;
          END IF;
          offs := offs + p_counts[i];
          out_stream := p_streams[i];
          out_revision := cur + p_counts[i];
          out_position := last_pos;
          out_tx := pg_current_xact_id()::text;
          out_replayed := false;
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
  {
    version: 8,
    name: 'set-based append',
    sql: `
      -- The same append as version 7, in a fixed handful of statements whatever the number of
      -- streams instead of five per stream: each statement inside a function costs about as much
      -- as the work it does. Callers name each stream once per append.
${APPEND_CLAIMED}        SELECT w.stream, s.revision AS actual INTO bad
          FROM unnest(p_streams, p_expected) WITH ORDINALITY AS w(stream, exp, i)
          JOIN streams s ON s.stream = w.stream
         WHERE (w.exp = -1 AND s.revision <> -1) OR (w.exp = -3 AND s.revision = -1) OR (w.exp >= 0 AND s.revision <> w.exp)
         ORDER BY w.i LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'wrong_expected_revision'
            USING DETAIL = json_build_object('stream', bad.stream, 'actual', bad.actual)::text;
        END IF;
        -- Events go in in the order of the writes, so positions follow it; every statement of
        -- the WITH sees the streams as locked above, before the update.
        RETURN QUERY
          WITH w AS (
            SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::integer AS offs, s.revision AS cur
              FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
              JOIN streams s ON s.stream = u.stream
          ), ins AS (
            INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
            SELECT p_ids[w.offs + k], w.stream, w.cur + k, p_types[w.offs + k], p_versions[w.offs + k], p_data[w.offs + k], p_meta[w.offs + k]
              FROM w CROSS JOIN LATERAL generate_series(1, w.n) AS k
             ORDER BY w.i, k
            RETURNING events.stream, events.position
          ), upd AS (
            UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
          ), last AS (
            SELECT ins.stream, max(ins.position) AS position FROM ins GROUP BY ins.stream
          )
          SELECT w.stream, w.cur + w.n, last.position, pg_current_xact_id()::text, false
            FROM w LEFT JOIN last ON last.stream = w.stream
           ORDER BY w.i;
      END
      $fn$;
      -- The statements' plans do not depend on the arrays' contents: planning them once per
      -- connection instead of on every call takes about a third off the append's cost.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_generic_plan;
    `,
  },
  {
    version: 9,
    name: 'appends committed in groups',
    sql: `
      -- Several independent appends in one transaction: one commit (one WAL flush) and one set of
      -- stream locks for all, instead of many small transactions contending for the same rows.
      -- p_writes holds each append's number of writes; the write and event arrays are those of
      -- vac_append, one append after the other. Each append stands or falls on its own: a row
      -- per write with status 'ok', 'replayed' (all its events were already stored), or one row
      -- with 'conflict' (the stream and its actual revision) or 'duplicate' (some of its event ids
      -- were already stored); an append that fails writes nothing. Appends later in a group see
      -- the writes of earlier ones, as if they had committed one after the other.
${GROUP_HEAD}${GROUP_LOOP}      END
      $fn$;
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_generic_plan;
    `,
  },
  {
    version: 10,
    name: 'groups of appends written set-based',
    sql: `
      -- vac_append_batch as in version 9, with a faster way for the usual group: when none of its
      -- event ids is stored yet and no stream is shared by two appends unless all of them append
      -- with "any" (as concurrent bookings in one subgerencia's month do), the appends cannot
      -- affect each other's checks, so every check, insert and update of the group is one
      -- statement. Any other group goes through the loop of version 9, one append after another.
${GROUP_HEAD}${groupFastPath(ANSWER_SCANNED)}${GROUP_LOOP}      END
      $fn$;
      -- Planned for each call, with the group's real sizes: a plan cached while the tables were
      -- small can pick a scan of the whole of streams. Never JIT-compiled: a group costs far less
      -- to run than to compile.
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append_batch SET jit = off;
    `,
  },
  {
    version: 11,
    name: 'append planned per call',
    sql: `
      -- Version 8 planned vac_append's statements once per connection. A plan made while streams
      -- was small scans all of it, and a connection keeps its plan: audit appends, which touch
      -- thirty streams at a time, ended up reading every stream row. Planned per call, the plans
      -- follow the table as it grows.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append SET jit = off;
    `,
  },
  {
    version: 12,
    name: 'group answers joined',
    sql: `
      -- vac_append_batch as in version 10, but each write's last position comes from a join on its
      -- last revision instead of a scan of every inserted row per write: a group of a few thousand
      -- writes (an import, a large batch) took seconds in that scan.
${GROUP_HEAD}${groupFastPath(ANSWER_JOINED)}${GROUP_LOOP}      END
      $fn$;
      -- CREATE OR REPLACE resets a function's settings: version 10's are set again.
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append_batch SET jit = off;
    `,
  },
  {
    version: 13,
    name: 'appends that expect no revision',
    sql: `
      -- Appends whose every write expects no revision ("any": the audit records of queries) need
      -- none of vac_append's checks: the stream rows are claimed, locked and moved on in the one
      -- upsert, in name order as vac_append locks them, and the events go in with the revisions
      -- it hands out. Each stream is named once. An event id already stored fails the whole call
      -- on the unique index: there is no replay to answer, the ids being new for every record.
${anyHead('integer AS offs')}, ins AS (
            INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
            SELECT p_ids[w.offs + k], w.stream, s.revision - w.n + k, p_types[w.offs + k], p_versions[w.offs + k],
                   p_data[w.offs + k], p_meta[w.offs + k]
              FROM w JOIN s ON s.stream = w.stream CROSS JOIN LATERAL generate_series(1, w.n) AS k
             ORDER BY w.i, k
            RETURNING events.stream, events.position
          ), last AS (
            SELECT ins.stream, max(ins.position) AS position FROM ins GROUP BY ins.stream
          )
          SELECT w.stream, s.revision, last.position, pg_current_xact_id()::text
            FROM w JOIN s ON s.stream = w.stream LEFT JOIN last ON last.stream = w.stream
           ORDER BY w.i;
      END
      $fn$;
      ALTER FUNCTION vac_append_any SET jit = off;
    `,
  },
  {
    version: 14,
    name: 'audit deletions read DELETE',
    sql: `
      -- The audit read model now names a deletion's action DELETE, with the Spanish label in its
      -- details. Rows projected before keep their events' meaning and take the new name here, so
      -- the trail reads the same without a rebuild; a rebuild projects them so by itself. The
      -- read model is created by the projectors, so a database without it has nothing to change.
      DO $do$
      BEGIN
        IF to_regclass('rm_audit') IS NOT NULL THEN
          UPDATE rm_audit SET action = 'DELETE', details = jsonb_build_object('etiqueta', 'ELIMINACION') || details
           WHERE action = 'ELIMINACION';
        END IF;
      END
      $do$;
    `,
  },
  {
    version: 15,
    name: 'appends linear in their size',
    sql: `
      -- vac_append, vac_append_batch and vac_append_any as in versions 8, 12 and 13, with the same
      -- checks, locks, order and answers, but without a subscript of an event array: each wrote n
      -- events in time n² (one append of 200,000 events held a backend for minutes and gigabytes).
      -- The events are unnested side by side and joined to their slots by their place in the arrays
      -- (insertEvents above); vac_append_batch's slower way splits the group into its appends in one
      -- pass instead of slicing every array once per append.
${linearAppends(insertEvents)}    `,
  },
  {
    version: 16,
    name: 'occupancy kept as spans',
    sql: `
      -- The occupancy read model keeps one row per vacation (rm_occupancy_spans) instead of one per
      -- calendar day. The old table goes, and the projector starts again from the first event, into
      -- the new table its runner creates.
      DROP TABLE IF EXISTS rm_occupancy, rm_occupancy__rebuild;
      UPDATE projection_checkpoints SET commit_pos = 0, prepare_pos = 0, updated_at = now() WHERE name = 'occupancy';
    `,
  },
  {
    version: 17,
    name: 'hash chain of every stream',
    sql: `
      -- Every event carries the SHA-256 of its stream's previous event's hash followed by its own
      -- canonical JSON (src/store/chain.ts defines both and computes the same in TypeScript):
      -- jsonb's text form of (stream, revision, type, version, data, metadata), in UTF-8.
      ALTER TABLE events ADD COLUMN hash bytea;
      CREATE FUNCTION vac_event_canonical(p_stream text, p_revision bigint, p_type text, p_version integer, p_data jsonb, p_meta jsonb)
        RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT convert_to(jsonb_build_object('stream', p_stream, 'revision', p_revision, 'type', p_type, 'version', p_version,
                                             'data', p_data, 'metadata', p_meta)::text, 'UTF8')
      $$;
      -- One link: the running hash so far, or the hash the chain starts from (none for a new stream).
      CREATE FUNCTION vac_chain_step(p_state bytea, p_prev bytea, p_canonical bytea)
        RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT sha256(coalesce(p_state, p_prev, ''::bytea) || p_canonical)
      $$;
      -- vac_chain(prev, canonical) OVER (PARTITION BY stream ORDER BY revision ROWS UNBOUNDED PRECEDING):
      -- the hash of each event of a run of a stream's events that follows the hash prev.
      CREATE AGGREGATE vac_chain(bytea, bytea) (SFUNC = vac_chain_step, STYPE = bytea);

      -- The events stored so far, chained in one pass in the order of the (stream, revision) index.
      UPDATE events e SET hash = c.hash
        FROM (
          SELECT position, vac_chain(NULL::bytea, vac_event_canonical(stream, revision, type, version, data, metadata))
                   OVER (PARTITION BY stream ORDER BY revision ROWS UNBOUNDED PRECEDING) AS hash
            FROM events
        ) c
       WHERE e.position = c.position;
      ALTER TABLE events ALTER COLUMN hash SET NOT NULL;

      -- The appends of version 15, each writing its events' hashes.
${linearAppends(insertChainedEvents)}    `,
  },
  {
    version: 18,
    name: 'per-worker read model',
    sql: `
      -- One row per worker with what consult and calculate need, folded from the reference tables
      -- once per change instead of once per request: the contracts (each with its company
      -- contract's rules, in the order start date, a missing one first, then id) and the payroll,
      -- as three arrays over the dates on which sheets of the worker end, ascending: the date (days
      -- since 1970-01-01), the days worked of the sheets that count (of main contracts, by
      -- contract id, inside that contract's dates; null when none of that date's sheets counts)
      -- and the basic compensation of that date's sheets. version is the reference data version
      -- that last changed the row.
      CREATE TABLE rm_workers (
        worker_id       bigint PRIMARY KEY,
        document_number text NOT NULL,
        document_type   text NOT NULL,
        first_names     text NOT NULL,
        last_names      text NOT NULL,
        contracts       jsonb NOT NULL,
        sheet_ends      integer[] NOT NULL,
        sheet_days      integer[] NOT NULL,
        sheet_pay       bigint[] NOT NULL,
        version         bigint NOT NULL
      );
      -- Not unique: an import that hands a document number from one worker to another rewrites
      -- both rows in one statement, and ref_workers keeps the numbers unique.
      CREATE INDEX rm_workers_document ON rm_workers (document_number);
      CREATE INDEX rm_workers_version ON rm_workers (version);

      -- The rows of these workers (those that exist), computed from the reference tables.
      CREATE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_ends integer[], sheet_days integer[], sheet_pay bigint[])
        LANGUAGE sql STABLE AS $fn$
        WITH w AS (
          SELECT r.id, r.document_number, r.document_type, r.first_names, r.last_names
            FROM ref_workers r WHERE r.id IN (SELECT unnest(p_ids))
        ), k AS (
          SELECT c.worker_id,
                 jsonb_agg(jsonb_build_object(
                   'id', c.id, 'companyContractId', c.company_contract_id, 'subgerenciaId', c.subgerencia_id,
                   'startDate', c.start_date, 'endDate', c.end_date, 'settled', c.settled, 'additional', c.additional,
                   'baseSalary', c.base_salary, 'riskLevel', c.risk_level,
                   'company', CASE WHEN cc.id IS NULL THEN NULL ELSE jsonb_build_object(
                     'id', cc.id, 'name', cc.name,
                     'vacationParams', CASE WHEN cc.has_vacation_params THEN jsonb_build_object(
                       'annualDays', cc.annual_days, 'annualDaysHighRisk', cc.annual_days_high_risk,
                       'minEnjoyedDays', cc.min_enjoyed_days, 'advanceAllowed', cc.advance_allowed,
                       'maxAdvanceDays', cc.max_advance_days, 'maxPeopleOnVacation', cc.max_people_on_vacation) END) END
                 ) ORDER BY c.start_date NULLS FIRST, c.id) AS contracts
            FROM ref_contracts c
            JOIN w ON w.id = c.worker_id
            LEFT JOIN ref_company_contracts cc ON cc.id = c.company_contract_id
           GROUP BY c.worker_id
        ), ends AS (
          SELECT s.worker_id, s.period_end - DATE '1970-01-01' AS day,
                 sum(s.days_worked) FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS days,
                 sum(s.basic_compensation) AS pay
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
            LEFT JOIN ref_contracts c ON c.id = s.contract_id AND c.worker_id = s.worker_id
           GROUP BY s.worker_id, s.period_end
        ), p AS (
          SELECT ends.worker_id, array_agg(ends.day ORDER BY ends.day) AS sheet_ends,
                 array_agg(ends.days ORDER BY ends.day) AS sheet_days, array_agg(ends.pay ORDER BY ends.day) AS sheet_pay
            FROM ends GROUP BY ends.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;

      INSERT INTO rm_workers (worker_id, document_number, document_type, first_names, last_names, contracts, sheet_ends, sheet_days, sheet_pay, version)
      SELECT f.*, (SELECT version FROM ref_version WHERE id = 1)
        FROM vac_worker_rows((SELECT coalesce(array_agg(id), '{}') FROM ref_workers)) f;
    `,
  },
  {
    version: 19,
    name: 'canonical JSON written without rebuilding the jsonb',
    sql: `
      -- The same bytes as version 17's, which built a jsonb of the whole event (copying its data
      -- and metadata into it) only to print it: jsonb prints an object's keys in its own order, so
      -- the envelope's is fixed (data, type, stream, version, metadata, revision), and its members
      -- print as they do on their own. Appends and verification print each event once, not twice.
      CREATE OR REPLACE FUNCTION vac_event_canonical(p_stream text, p_revision bigint, p_type text, p_version integer, p_data jsonb, p_meta jsonb)
        RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT convert_to('{"data": ' || p_data::text || ', "type": ' || to_json(p_type)::text || ', "stream": ' || to_json(p_stream)::text
                          || ', "version": ' || p_version || ', "metadata": ' || p_meta::text || ', "revision": ' || p_revision || '}', 'UTF8')
      $$;
    `,
  },
  {
    version: 20,
    name: 'reference rows checked by the import',
    sql: `
      -- Only the import writes the reference tables, and never deletes a row; before it writes, it
      -- checks every reference of the file against the file and the database in a few set-based
      -- queries, and refuses the file naming each bad row. The foreign keys checked them again
      -- one row at a time: three quarters of the database's work of loading payroll sheets.
      ALTER TABLE ref_payroll_sheets DROP CONSTRAINT IF EXISTS ref_payroll_sheets_contract_id_fkey;
      ALTER TABLE ref_payroll_sheets DROP CONSTRAINT IF EXISTS ref_payroll_sheets_worker_id_fkey;
      ALTER TABLE ref_contracts DROP CONSTRAINT IF EXISTS ref_contracts_worker_id_fkey;
      ALTER TABLE ref_contracts DROP CONSTRAINT IF EXISTS ref_contracts_subgerencia_id_fkey;
    `,
  },
  {
    version: 21,
    name: 'vacation law parameters of the reference data',
    sql: `
      -- 'half': at most half of each accrual period's days may be paid in money while the contract
      -- is in force (CST art. 189, Ley 1429 de 2010 art. 20). Null, as every company contract
      -- imported before, keeps no such limit.
      ALTER TABLE ref_company_contracts ADD COLUMN IF NOT EXISTS compensation_limit text CHECK (compensation_limit IN ('half'));
      -- Technical, specialised, trusted or managerial staff may accumulate four years of vacations
      -- instead of two (CST art. 190). Contracts imported before were not marked so.
      ALTER TABLE ref_contracts ADD COLUMN IF NOT EXISTS technical_or_trusted boolean NOT NULL DEFAULT false;

      -- The per-worker rows carry both, as the reference tables now do.
      CREATE OR REPLACE FUNCTION vac_worker_rows(p_ids bigint[])
        RETURNS TABLE (worker_id bigint, document_number text, document_type text, first_names text, last_names text,
                       contracts jsonb, sheet_ends integer[], sheet_days integer[], sheet_pay bigint[])
        LANGUAGE sql STABLE AS $fn$
        WITH w AS (
          SELECT r.id, r.document_number, r.document_type, r.first_names, r.last_names
            FROM ref_workers r WHERE r.id IN (SELECT unnest(p_ids))
        ), k AS (
          SELECT c.worker_id,
                 jsonb_agg(jsonb_build_object(
                   'id', c.id, 'companyContractId', c.company_contract_id, 'subgerenciaId', c.subgerencia_id,
                   'startDate', c.start_date, 'endDate', c.end_date, 'settled', c.settled, 'additional', c.additional,
                   'baseSalary', c.base_salary, 'riskLevel', c.risk_level, 'technicalOrTrusted', c.technical_or_trusted,
                   'company', CASE WHEN cc.id IS NULL THEN NULL ELSE jsonb_build_object(
                     'id', cc.id, 'name', cc.name,
                     'vacationParams', CASE WHEN cc.has_vacation_params THEN jsonb_build_object(
                       'annualDays', cc.annual_days, 'annualDaysHighRisk', cc.annual_days_high_risk,
                       'minEnjoyedDays', cc.min_enjoyed_days, 'advanceAllowed', cc.advance_allowed,
                       'maxAdvanceDays', cc.max_advance_days, 'maxPeopleOnVacation', cc.max_people_on_vacation,
                       'compensationLimit', cc.compensation_limit) END) END
                 ) ORDER BY c.start_date NULLS FIRST, c.id) AS contracts
            FROM ref_contracts c
            JOIN w ON w.id = c.worker_id
            LEFT JOIN ref_company_contracts cc ON cc.id = c.company_contract_id
           GROUP BY c.worker_id
        ), ends AS (
          SELECT s.worker_id, s.period_end - DATE '1970-01-01' AS day,
                 sum(s.days_worked) FILTER (WHERE NOT c.additional AND c.start_date <= s.period_start AND s.period_end <= c.end_date) AS days,
                 sum(s.basic_compensation) AS pay
            FROM ref_payroll_sheets s
            JOIN w ON w.id = s.worker_id
            LEFT JOIN ref_contracts c ON c.id = s.contract_id AND c.worker_id = s.worker_id
           GROUP BY s.worker_id, s.period_end
        ), p AS (
          SELECT ends.worker_id, array_agg(ends.day ORDER BY ends.day) AS sheet_ends,
                 array_agg(ends.days ORDER BY ends.day) AS sheet_days, array_agg(ends.pay ORDER BY ends.day) AS sheet_pay
            FROM ends GROUP BY ends.worker_id
        )
        SELECT w.id, w.document_number, w.document_type, w.first_names, w.last_names,
               coalesce(k.contracts, '[]'::jsonb), coalesce(p.sheet_ends, '{}'), coalesce(p.sheet_days, '{}'), coalesce(p.sheet_pay, '{}')
          FROM w
          LEFT JOIN k ON k.worker_id = w.id
          LEFT JOIN p ON p.worker_id = w.id
      $fn$;

      UPDATE rm_workers r SET contracts = f.contracts
        FROM vac_worker_rows((SELECT coalesce(array_agg(worker_id), '{}') FROM rm_workers)) f
       WHERE f.worker_id = r.worker_id AND r.contracts IS DISTINCT FROM f.contracts;
    `,
  },
  {
    version: 22,
    name: 'web panel: accounts, invitations, sessions, sign-in throttle',
    sql: `
      -- People who sign in to the panel: administrators of the reference data (ref_users), by
      -- e-mail, so that a re-import that renumbers nobody keeps their passwords.
      CREATE TABLE panel_accounts (
        email         text PRIMARY KEY CHECK (email = lower(email)),
        password_hash text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        updated_at    timestamptz NOT NULL DEFAULT now(),
        last_sign_in  timestamptz,
        revoked_at    timestamptz
      );
      -- One-time links printed by 'vacaciones panel invite'; only the token's SHA-256 is kept.
      CREATE TABLE panel_invites (
        token_hash text PRIMARY KEY,
        email      text NOT NULL CHECK (email = lower(email)),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at    timestamptz
      );
      CREATE INDEX panel_invites_email ON panel_invites (email);
      -- Sessions by the SHA-256 of their id: a copy of the table lets nobody in.
      CREATE TABLE panel_sessions (
        id_hash    text PRIMARY KEY,
        email      text,
        data       jsonb NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX panel_sessions_email ON panel_sessions (email);
      CREATE INDEX panel_sessions_expires ON panel_sessions (expires_at);
      -- Failed sign-ins per e-mail as typed (known or not, so the answer tells nothing).
      CREATE TABLE panel_sign_in_failures (
        email        text PRIMARY KEY,
        failures     integer NOT NULL,
        last_failure timestamptz NOT NULL,
        locked_until timestamptz
      );
      -- The key that signs session cookies, shared by every instance and kept across restarts.
      CREATE TABLE panel_settings (
        id             integer PRIMARY KEY CHECK (id = 1),
        session_secret text NOT NULL
      );
      -- The panel's searches and the occupancy grid: bounded index scans, never a pass over every
      -- worker. Names are compared without case or accents.
      CREATE INDEX ref_workers_last_names_search ON ref_workers
        (lower(translate(last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_first_names_search ON ref_workers
        (lower(translate(first_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_full_name_search ON ref_workers
        (lower(translate(first_names || ' ' || last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_contracts_subgerencia ON ref_contracts (subgerencia_id, company_contract_id);
      -- When an import last changed the reference data (every such import bumps the version).
      ALTER TABLE ref_version ADD COLUMN changed_at timestamptz;
      CREATE FUNCTION ref_version_changed_at() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF NEW.version IS DISTINCT FROM OLD.version THEN NEW.changed_at := now(); END IF;
        RETURN NEW;
      END
      $fn$;
      CREATE TRIGGER ref_version_changed_at BEFORE UPDATE ON ref_version
        FOR EACH ROW EXECUTE FUNCTION ref_version_changed_at();
    `,
  },
];

export async function migrate(db: Db, list: Migration[] = migrations): Promise<number[]> {
  return db.withConnection(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await conn.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version    integer PRIMARY KEY,
        name       text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = new Set(
        (await conn.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) =>
          Number(r.version),
        ),
      );
      const applied: number[] = [];
      for (const m of [...list].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        await conn.query('BEGIN');
        try {
          await conn.exec(m.sql);
          await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await conn.query('COMMIT');
        } catch (err) {
          await conn.query('ROLLBACK');
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
      }
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  });
}
