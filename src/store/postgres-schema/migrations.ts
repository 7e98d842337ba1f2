import type { Migration } from '../../db/types.ts';
import { vacAppendAnySql } from './vac-append-any.ts';
import { vacAppendBatchSql } from './vac-append-batch.ts';
import { vacAppendSql } from './vac-append.ts';

/**
 * The event store's schema on PostgreSQL (and PGlite), version by version: the events and
 * streams tables, the sequence of vacation record ids, the append functions and the hash chain.
 * src/db/migrations.ts runs these with the other owners' migrations, in version order.
 *
 * Frozen: the text of an applied migration never changes (test/unit/db/migrations.test.ts pins
 * the hash of each). The live append functions are in vac-append.ts, vac-append-batch.ts and
 * vac-append-any.ts; migration 17 creates them from those files. To change one: copy the text
 * migration 17 renders today into it as a literal (the test still passes), edit the function's
 * file, and add a migration that creates it again from the file (CREATE OR REPLACE resets a
 * function's settings: set them again), under the next free version number.
 */

/** Migration 17 up to the append functions: the hash column, its functions, the events chained. */
const HASH_CHAIN = `
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
`;

export const eventStoreMigrations: Migration[] = [
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
    version: 4,
    name: 'vacation record ids',
    sql: `
      -- Numeric record ids (the spec's id, idEliminado) are taken before the append; gaps are fine.
      CREATE SEQUENCE vacation_record_ids START 1;
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
        SELECT pg_advisory_xact_lock_shared(7264, 2)
      $$;
      CREATE OR REPLACE FUNCTION vac_append(
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
  },
  {
    version: 8,
    name: 'set-based append',
    sql: `
      -- The same append as version 7, in a fixed handful of statements whatever the number of
      -- streams instead of five per stream: each statement inside a function costs about as much
      -- as the work it does. Callers name each stream once per append.
      CREATE OR REPLACE FUNCTION vac_append(
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
                WITH wr AS (
                  SELECT u.i, u.a, u.stream, u.exp, u.n, (sum(u.n) OVER (ORDER BY u.i) - u.n)::integer AS eoffs
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
                ), answers AS (
                  SELECT ok.a, ok.i, ok.stream, ok.cur + ok.soffs + ok.n AS revision,
                         (SELECT max(ins.position) FROM ins
                           WHERE ins.stream = ok.stream AND ins.revision > ok.cur + ok.soffs AND ins.revision <= ok.cur + ok.soffs + ok.n) AS position,
                         pg_current_xact_id()::text AS tx, 'ok'::text AS status
                    FROM ok
                  UNION ALL
                  SELECT failed.a, failed.i, failed.stream, failed.cur, NULL::bigint, NULL::text, 'conflict'::text FROM failed
                )
                SELECT answers.a::integer, answers.stream, answers.revision, answers.position, answers.tx, answers.status
                  FROM answers ORDER BY answers.a, answers.i;
              RETURN;
            END IF;
          END;
        END IF;
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
                WITH wr AS (
                  SELECT u.i, u.a, u.stream, u.exp, u.n, (sum(u.n) OVER (ORDER BY u.i) - u.n)::integer AS eoffs
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
          END;
        END IF;
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
      CREATE OR REPLACE FUNCTION vac_append(
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
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j
                  FROM (SELECT * FROM w) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta
                  FROM unnest(p_ids, p_types, p_versions, p_data, p_meta) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                  JOIN slots ON slots.j = e.j
                 ORDER BY e.j
                RETURNING events.stream, events.revision, events.position
              ), upd AS (
              UPDATE streams s SET revision = w.cur + w.n FROM w WHERE s.stream = w.stream AND w.n > 0
            )
            SELECT w.stream, w.cur + w.n, ins.position, pg_current_xact_id()::text, false
              FROM w LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = w.cur + w.n
             ORDER BY w.i;
      END
      $fn$;
      -- CREATE OR REPLACE resets a function's settings: version 11's are set again.
      ALTER FUNCTION vac_append SET plan_cache_mode = force_custom_plan;
      ALTER FUNCTION vac_append SET jit = off;

      CREATE OR REPLACE FUNCTION vac_append_batch(
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
          WHERE l.pid = pg_backend_pid() AND l.locktype = 'advisory' AND l.classid = 7264 AND l.objid = 2 AND l.objsubid = 2
        ) THEN
          RAISE EXCEPTION 'append_lock_late' USING DETAIL = 'take the append lock (vac_claim_append) before the transaction''s first write';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(7264, 2);
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
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j
                  FROM (SELECT * FROM ok) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta
                  FROM unnest(p_ids, p_types, p_versions, p_data, p_meta) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                  JOIN slots ON slots.j = e.j
                 ORDER BY e.j
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
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j
                  FROM (SELECT * FROM w) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta
                  FROM unnest(coalesce(g.ids, '{}'), coalesce(g.types, '{}'), coalesce(g.versions, '{}'), coalesce(g.data, '{}'), coalesce(g.meta, '{}')) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                  JOIN slots ON slots.j = e.j
                 ORDER BY e.j
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
            SELECT u.stream, u.n, u.i, (sum(u.n) OVER (ORDER BY u.i) - u.n)::bigint AS eoffs
              FROM unnest(p_streams, p_counts) WITH ORDINALITY AS u(stream, n, i)
          ), s AS (
            INSERT INTO streams AS st (stream, revision)
            SELECT w.stream, w.n - 1 FROM w ORDER BY w.stream
            ON CONFLICT (stream) DO UPDATE SET revision = st.revision + excluded.revision + 1
            RETURNING st.stream, st.revision
          ),
              slots AS (
                SELECT wr.stream, wr.cur + wr.soffs + k AS revision, wr.eoffs + k AS j
                  FROM (SELECT w.stream, w.n, w.i, s.revision - w.n AS cur, 0::bigint AS soffs, w.eoffs FROM w JOIN s ON s.stream = w.stream) AS wr CROSS JOIN LATERAL generate_series(1, wr.n) AS k
              ), ins AS (
                INSERT INTO events (event_id, stream, revision, type, version, data, metadata)
                SELECT e.id, slots.stream, slots.revision, e.type, e.version, e.data, e.meta
                  FROM unnest(p_ids, p_types, p_versions, p_data, p_meta) WITH ORDINALITY AS e(id, type, version, data, meta, j)
                  JOIN slots ON slots.j = e.j
                 ORDER BY e.j
                RETURNING events.stream, events.revision, events.position
              )
          SELECT w.stream, s.revision, ins.position, pg_current_xact_id()::text
            FROM w JOIN s ON s.stream = w.stream LEFT JOIN ins ON w.n > 0 AND ins.stream = w.stream AND ins.revision = s.revision
           ORDER BY w.i;
      END
      $fn$;
      ALTER FUNCTION vac_append_any SET jit = off;
    `,
  },
  {
    version: 17,
    name: 'hash chain of every stream',
    sql: `${HASH_CHAIN}${vacAppendSql}\n${vacAppendBatchSql}\n${vacAppendAnySql}    `,
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
];
