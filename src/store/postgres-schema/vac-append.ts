import { APPEND_LOCK } from '../../db/advisory-locks.ts';

/**
 * vac_append as the database runs it: the checked multi-stream append of every request, in one
 * round trip (created by the baseline, migrations.ts).
 *
 * Expected revisions: n >= 0 exact, -1 no stream, -2 any, -3 stream exists. It takes the append
 * lock (src/db/advisory-locks.ts) for the rest of the transaction, answers a retried append (all
 * its event ids stored) with what it stored, claims and locks every stream in name order, checks
 * every expectation, then inserts the events: one row per event slot joined to the event arrays
 * unnested side by side on its place in them (every array read once, in order), each event
 * chained to its stream's previous one (src/store/chain.ts).
 *
 * Editing this text edits an applied migration: see the note at the top of migrations.ts.
 */
export const vacAppendSql = `      CREATE OR REPLACE FUNCTION vac_append(
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text, out_replayed boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        n_ids integer := coalesce(array_length(p_ids, 1), 0);
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
        IF n_ids > 0 THEN
          SELECT count(*) INTO n_existing FROM events WHERE event_id = ANY (p_ids);
          IF n_existing = n_ids THEN
            RETURN QUERY SELECT e.stream, max(e.revision), max(e.position), max(e.tx_id::text), true
              FROM events e WHERE e.event_id = ANY (p_ids) GROUP BY e.stream;
            RETURN;
          ELSIF n_existing > 0 THEN
            RAISE EXCEPTION 'duplicate_event_ids' USING DETAIL = n_existing || ' of ' || n_ids;
          END IF;
        END IF;
        -- Claim every stream (a row at revision -1 stands for "no stream yet"), then lock them
        -- all, both in name order: two appends never wait on each other in a cycle, and two
        -- creators of one stream meet on its row instead of on an error.
        INSERT INTO streams (stream, revision)
          SELECT u, -1 FROM unnest(p_streams) AS u ORDER BY u ON CONFLICT (stream) DO NOTHING;
        PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream FOR UPDATE;
            SELECT w.stream, s.revision AS actual INTO bad
              FROM unnest(p_streams, p_expected) WITH ORDINALITY AS w(stream, exp, i)
              JOIN streams s ON s.stream = w.stream
             WHERE (w.exp = -1 AND s.revision <> -1) OR (w.exp = -3 AND s.revision = -1) OR (w.exp >= 0 AND s.revision <> w.exp)
             ORDER BY w.i LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'wrong_expected_revision'
            USING DETAIL = json_build_object('stream', bad.stream, 'actual', bad.actual)::text;
        END IF;
          RETURN QUERY
            WITH w AS (
              SELECT u.stream, u.n, u.i, s.revision AS cur, 0::bigint AS soffs, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
                FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
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
                      FROM unnest(p_ids, p_types, p_versions, p_data, p_meta) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                      JOIN slots ON slots.j = e.j
                  ) AS c
                 ORDER BY c.j
                RETURNING events.stream, events.revision, events.position
              ), upd AS (
              UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
            )
            SELECT w.stream, w.cur + w.n, ins.position, pg_current_xact_id()::text, false
              FROM w LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = w.cur + w.n
             ORDER BY w.i;
      END
      $fn$;
      -- Planned per call, so that its plans follow the streams table as it grows.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append SET jit = off;
`;
