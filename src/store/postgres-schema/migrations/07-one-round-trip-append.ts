import type { Migration } from '../../../db/types.ts';
import { vacClaimAppendSql } from '../vac-claim-append.ts';

export const oneRoundTripAppend: Migration = {
  version: 7,
  name: 'one-round-trip append',
  sql: `
      -- The whole multi-stream append in one statement: one round trip instead of one per step.
      -- Expected revisions: n >= 0 exact, -1 no stream, -2 any, -3 stream exists.
      -- vac_claim_append is for transactions that write other rows before appending (the
      -- reference-data import).
${vacClaimAppendSql}      CREATE OR REPLACE FUNCTION vac_append(
        p_streams text[], p_expected bigint[], p_counts integer[],
        p_ids uuid[], p_types text[], p_versions integer[], p_data jsonb[], p_meta jsonb[]
      ) RETURNS TABLE (out_stream text, out_revision bigint, out_position bigint, out_tx text, out_replayed boolean)
      LANGUAGE plpgsql AS $fn$
      DECLARE
        n_ids integer := coalesce(array_length(p_ids, 1), 0);
        n_existing integer;
        i integer;
        cur bigint;
        exp bigint;
        offs integer := 0;
        last_pos bigint;
        s_name text;
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
};
