import type { Migration } from '../../../db/types.ts';

export const appendsCommittedInGroups: Migration = {
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
      CREATE OR REPLACE FUNCTION vac_append_batch(
        p_writes integer[],
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_append integer, out_stream text, out_revision bigint, out_position bigint, out_tx text, out_status text)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        a integer;
        w0 integer := 0;
        e0 integer := 0;
        nw integer;
        ne integer;
        n_existing integer;
        bad record;
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
        -- Every stream of the group claimed and locked up front, in name order, as vac_append does.
        INSERT INTO streams (stream, revision)
          SELECT DISTINCT u, -1 FROM unnest(p_streams) AS u ORDER BY u ON CONFLICT (stream) DO NOTHING;
        PERFORM 1 FROM streams s WHERE s.stream = ANY (p_streams) ORDER BY s.stream FOR UPDATE;
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
      END
      $fn$;
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_generic_plan;
    `,
};
