import type { Migration } from '../../db/types.ts';
import { vacAppendAnySql } from './vac-append-any.ts';
import { vacAppendBatchSql } from './vac-append-batch.ts';
import { vacAppendSql } from './vac-append.ts';
import { vacChainSql, vacEventCanonicalSql } from './vac-chain.ts';
import { vacClaimAppendSql } from './vac-claim-append.ts';

/**
 * The event store's schema on PostgreSQL (and PGlite): the events and streams tables, the sequence
 * of vacation record ids, the hash chain and the append functions. src/migrations.ts runs these
 * with the other owners' migrations, in version order.
 *
 * Version 1 is the baseline: the schema as it stood at the first release, created directly. Every
 * function has its text in a file of its own beside this one (vac-append.ts, vac-append-batch.ts,
 * vac-append-any.ts, vac-claim-append.ts, vac-chain.ts), which the migration that creates it last
 * renders. Frozen once applied (test/unit/db/migrations.test.ts pins the hash of each): to change a
 * function, copy the text the baseline renders today into it as a literal (the test still passes),
 * edit the function's file, and add a migration that creates it again from the file (CREATE OR
 * REPLACE resets a function's settings: set them again), under the next free version number.
 */
export const eventStoreMigrations: Migration[] = [
  {
    version: 1,
    name: 'event store: events, streams, record ids, hash chain, appends',
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
        -- The SHA-256 of the stream's previous event's hash followed by this event's canonical JSON
        -- (vac_event_canonical; src/store/chain.ts defines both and computes the same in TypeScript).
        hash         bytea NOT NULL,
        UNIQUE (stream, revision)
      );
      -- readAll walks (tx_id, position): every row below the oldest open transaction is final.
      CREATE INDEX events_tx_position ON events (tx_id, position);
      -- Each stream's revision, -1 for one claimed by an append that has written nothing yet.
      CREATE TABLE streams (
        stream   text PRIMARY KEY,
        revision bigint NOT NULL
      );
      -- Numeric record ids (the spec's id, idEliminado) are taken before the append; gaps are fine.
      CREATE SEQUENCE vacation_record_ids START 1;

${vacEventCanonicalSql}${vacChainSql}
${vacClaimAppendSql}
${vacAppendSql}
${vacAppendBatchSql}
${vacAppendAnySql}    `,
  },
  {
    version: 44,
    name: 'event store: the append functions plan their statements once per connection, by their keys',
    // Planning the append's one large statement afresh at every call (force_custom_plan) was three
    // quarters of its time in the database, planning costing three times the work for a group of
    // appends. A plan made once per connection must not hang on the sizes of the
    // tables when it was made (a seq scan chosen over a log of a few rows stays chosen at millions):
    // without seq scans, every lookup of these statements is an index probe whatever the
    // statistics say; the arrays they unnest are small in any case.
    sql: `
      ALTER FUNCTION vac_append SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION vac_append SET enable_seqscan = off;
      ALTER FUNCTION vac_append_batch SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION vac_append_batch SET enable_seqscan = off;
      ALTER FUNCTION vac_append_any SET plan_cache_mode = force_generic_plan;
      ALTER FUNCTION vac_append_any SET enable_seqscan = off;
    `,
  },
];
