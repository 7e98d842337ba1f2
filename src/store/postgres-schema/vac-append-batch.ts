import { APPEND_LOCK } from '../../db/advisory-locks.ts';

/**
 * vac_append_batch as the database runs it: several independent appends in one transaction,
 * one commit and one set of stream locks for all (src/store/group-append.ts gathers them). Created
 * by the baseline, migrations.ts.
 *
 * p_writes holds each append's number of writes; the other arrays are vac_append's, one append
 * after the other. Each append stands or falls on its own: a row per write with status 'ok' or
 * 'replayed', or one row with 'conflict' (the stream and its actual revision) or 'duplicate'.
 * The usual group is checked and written in one statement; any other goes append by append, each
 * seeing the writes of those before it.
 *
 * Editing this text edits an applied migration: see the note at the top of migrations.ts.
 */
export const vacAppendBatchSql = `      CREATE OR REPLACE FUNCTION vac_append_batch(
        p_writes integer[],
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_append integer, out_stream text, out_revision bigint, out_position bigint, out_tx text, out_status text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        -- The append each write belongs to.
        v_app integer[];
        g record;
        ne integer;
        n_existing integer;
        bad record;
      BEGIN

        -- Appending transactions hold this lock from before their first write until they end,
        -- which is how readers tell them apart from every other open transaction (see the
        -- PostgreSQL store's readAll). One that already wrote without it is refused.
        IF pg_current_xact_id_if_assigned() IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM pg_locks l
          WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.classid = ${APPEND_LOCK.namespace} AND l.objid = ${APPEND_LOCK.id} AND l.objsubid = 2
        ) THEN
          RAISE EXCEPTION 'append_lock_late' USING DETAIL = 'take the append lock (vac_claim_append) before the transaction''s first write';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${APPEND_LOCK.namespace}, ${APPEND_LOCK.id});
        -- Every stream of the group claimed and locked up front, in name order, as vac_append does.
        INSERT INTO streams (stream, revision)
          SELECT DISTINCT u, -1 FROM unnest(p_streams) AS u ORDER BY u ON CONFLICT (stream) DO NOTHING;
        PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream FOR UPDATE;
        SELECT coalesce(array_agg(w.a ORDER BY w.a), '{}') INTO v_app
          FROM unnest(p_writes) WITH ORDINALITY AS w(nw, a) CROSS JOIN LATERAL generate_series(1, w.nw);

        -- The usual group: none of its event ids stored yet, and no stream shared by two appends
        -- unless all of them append with "any". Its appends cannot affect each other's checks, so
        -- every check, insert and update of the group is one statement.
        IF NOT EXISTS (SELECT 1 FROM events WHERE event_id = ANY (p_ids)) AND NOT EXISTS (
          SELECT 1 FROM unnest(p_streams, p_expected, v_app) AS u(stream, exp, a)
           GROUP BY u.stream HAVING count(DISTINCT u.a) > 1 AND bool_or(u.exp <> -2)
        ) THEN
          RETURN QUERY
            WITH wr AS (
              SELECT u.i, u.a, u.stream, u.exp, u.n, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
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
                FROM chk WHERE chk.a NOT IN (SELECT failed.a FROM failed)
            ),
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j,
                       CASE WHEN k = 1 THEN (SELECT p.hash FROM events p WHERE p.stream = wr.stream AND p.revision = wr.cur + wr.soffs) END AS prev
                  FROM (SELECT * FROM ok) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata, hash)
                SELECT c.id, c.stream, c.revision, c.type, c.version, c.data, c.meta,
                       vac_chain(c.prev, vac_event_canonical(c.stream, c.revision, c.type, c.version, c.data, c.meta))
                         OVER (PARTITION BY c.stream ORDER BY c.revision ROWS UNBOUNDED PRECEDING)
                  FROM (
                    SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta, e.j, slots.prev
                      FROM unnest(p_ids, p_types, p_versions, p_data, p_meta) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                      JOIN slots ON slots.j = e.j
                  ) AS c
                 ORDER BY c.j
                RETURNING events.stream, events.revision, events.position
              ), upd AS (
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
            SELECT w.stream, s.revision AS actual INTO bad
              FROM unnest(g.streams, g.expected) WITH ORDINALITY AS w(stream, exp, i)
              JOIN streams s ON s.stream = w.stream
             WHERE (w.exp = -1 AND s.revision <> -1) OR (w.exp = -3 AND s.revision = -1) OR (w.exp >= 0 AND s.revision <> w.exp)
             ORDER BY w.i LIMIT 1;
            IF FOUND THEN
              RETURN QUERY SELECT g.a::integer, bad.stream, bad.actual, NULL::bigint, NULL::text, 'conflict'::text;
            ELSE
          RETURN QUERY
            WITH w AS (
              SELECT u.stream, u.n, u.i, s.revision AS cur, 0::bigint AS soffs, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
                FROM unnest(g.streams, g.counts) WITH ORDINALITY AS u(stream, n, i)
                JOIN streams s ON s.stream = u.stream
            ),
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j,
                       CASE WHEN k = 1 THEN (SELECT p.hash FROM events p WHERE p.stream = wr.stream AND p.revision = wr.cur + wr.soffs) END AS prev
                  FROM (SELECT * FROM w) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata, hash)
                SELECT c.id, c.stream, c.revision, c.type, c.version, c.data, c.meta,
                       vac_chain(c.prev, vac_event_canonical(c.stream, c.revision, c.type, c.version, c.data, c.meta))
                         OVER (PARTITION BY c.stream ORDER BY c.revision ROWS UNBOUNDED PRECEDING)
                  FROM (
                    SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta, e.j, slots.prev
                      FROM unnest(coalesce(g.ids, '{}'), coalesce(g.types, '{}'), coalesce(g.versions, '{}'), coalesce(g.data, '{}'), coalesce(g.meta, '{}')) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                      JOIN slots ON slots.j = e.j
                  ) AS c
                 ORDER BY c.j
                RETURNING events.stream, events.revision, events.position
              ), upd AS (
              UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
            )
            SELECT g.a::integer, w.stream, w.cur + w.n, ins.position, pg_current_xact_id()::text, 'ok'::text
              FROM w LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = w.cur + w.n
             ORDER BY w.i;
            END IF;
          END IF;
        END LOOP;
      END
      $fn$;
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append_batch SET jit = off;
`;
