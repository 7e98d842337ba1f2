import { APPEND_LOCK } from '../../db/advisory-locks.ts';

/**
 * vac_append_any as the database runs it: an append whose every write expects no revision (the
 * audit records of queries), with none of vac_append's checks: the stream rows are claimed,
 * locked and moved on in one upsert, in name order, and the events go in, chained, at the
 * revisions it hands out. Created by the baseline, migrations.ts.
 *
 * Editing this text edits an applied migration: see the note at the top of migrations.ts.
 */
export const vacAppendAnySql = `      CREATE OR REPLACE FUNCTION vac_append_any(
        p_streams text[], p_counts integer[], p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text)
      LANGUAGE plpgsql AS $fn$
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
        RETURN QUERY
          WITH w AS (
            SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
              FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
          ), s AS (
            INSERT INTO streams AS st (stream, revision)
            SELECT w.stream, w.n - 1 FROM w ORDER BY w.stream
            ON CONFLICT (stream) DO UPDATE SET revision = st.revision + excluded.revision + 1
            RETURNING st.stream, st.revision
          ),
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j,
                       CASE WHEN k = 1 THEN (SELECT p.hash FROM events p WHERE p.stream = wr.stream AND p.revision = wr.cur + wr.soffs) END AS prev
                  FROM (SELECT w.stream, w.n, w.i, s.revision - w.n AS cur, 0::bigint AS soffs, w.eoffs FROM w JOIN s ON s.stream = w.stream) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
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
              )
          SELECT w.stream, s.revision, ins.position, pg_current_xact_id()::text
            FROM w JOIN s ON s.stream = w.stream LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = s.revision
           ORDER BY w.i;
      END
      $fn$;
      ALTER FUNCTION vac_append_any SET jit = off;
`;
