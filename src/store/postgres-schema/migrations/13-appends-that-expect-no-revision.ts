import type { Migration } from '../../../db/types.ts';

export const appendsExpectingNoRevision: Migration = {
  version: 13,
  name: 'appends that expect no revision',
  sql: `
      -- Appends whose every write expects no revision ("any": the audit records of queries) need
      -- none of vac_append's checks: the stream rows are claimed, locked and moved on in the one
      -- upsert, in name order as vac_append locks them, and the events go in with the revisions
      -- it hands out. Each stream is named once. An event id already stored fails the whole call
      -- on the unique index: there is no replay to answer, the ids being new for every record.
      CREATE OR REPLACE FUNCTION vac_append_any(
        p_streams text[], p_counts integer[], p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text)
      LANGUAGE plpgsql AS $fn$
      BEGIN

        -- Appending transactions hold this lock from before their first write until they end,
        -- which is how readers tell them apart from every other open transaction (see the
        -- PostgreSQL store's readAll). One that already wrote without it is refused.
        IF pg_current_xact_id_if_assigned() IS NOT NULL AND NOT EXISTS (
          SELECT 1 FROM pg_locks l
          WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.classid = 7264 AND l.objid = 2 AND l.objsubid = 2
        ) THEN
          RAISE EXCEPTION 'append_lock_late' USING DETAIL = 'take the append lock (vac_claim_append) before the transaction''s first write';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(7264, 2);
        RETURN QUERY
          WITH w AS (
            SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::integer AS offs
              FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
          ), s AS (
            INSERT INTO streams AS st (stream, revision)
            SELECT w.stream, w.n - 1 FROM w ORDER BY w.stream
            ON CONFLICT (stream) DO UPDATE SET revision = st.revision + excluded.revision + 1
            RETURNING st.stream, st.revision
          ), ins AS (
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
};
