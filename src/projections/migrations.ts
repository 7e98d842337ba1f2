import type { Migration } from '../db/types.ts';

/**
 * The projections' checkpoints, and changes to read models already projected. The read models'
 * own tables are created by their projectors' runners (each projector's `tables`). Version 4 is
 * the baseline: the schema as it stood at the first release, created directly. Frozen once applied
 * (test/unit/db/migrations.test.ts pins the hash of each): a change is a new migration under the
 * next free version number. src/migrations.ts runs them with the other owners', in version order.
 */
export const projectionMigrations: Migration[] = [
  {
    version: 4,
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
    version: 42,
    name: 'period watch: workers whose accrual periods need heeding, figured by a sweep',
    sql: `
      -- Workers whose periods report (src/projections/law/periods.ts) has something to heed on
      -- the day the sweep figured it: periods owed beyond the limit (CST art. 190), pending days
      -- about to prescribe (art. 488). Only those: the others have no row.
      CREATE TABLE rm_period_watch (
        worker_id       bigint PRIMARY KEY,
        document_number text NOT NULL,
        name            text NOT NULL,
        subgerencias    text[] NOT NULL,
        owed            integer,
        owed_limit      integer,
        extended        boolean NOT NULL DEFAULT false,
        prescribes_on   date
      );
      CREATE INDEX rm_period_watch_owed ON rm_period_watch (owed DESC, name, worker_id) WHERE owed IS NOT NULL;
      CREATE INDEX rm_period_watch_prescribes ON rm_period_watch (prescribes_on, name, worker_id) WHERE prescribes_on IS NOT NULL;
      -- The last complete sweep (the day figured, the reference data's version then) and the one
      -- under way: how far it got, and the instance holding it until its lease runs out.
      CREATE TABLE rm_period_watch_sweep (
        id                      integer PRIMARY KEY CHECK (id = 1),
        figured_on              date,
        reference_version       bigint,
        finished_at             timestamptz,
        sweeping_on             date,
        sweep_reference_version bigint,
        swept_up_to             bigint,
        lease_owner             text,
        lease_until             timestamptz
      );
      INSERT INTO rm_period_watch_sweep (id) VALUES (1);
    `,
  },
  {
    version: 43,
    name: 'audit trail: details kept as json, as written',
    sql: `
      -- Details are read whole and never searched inside: json, not jsonb (src/projections/audit-trail/projector.ts).
      -- A database whose runners have not created the table yet gets it so from its DDL.
      ALTER TABLE IF EXISTS rm_audit ALTER COLUMN details TYPE json USING details::json;
    `,
  },
  {
    version: 70,
    name: "liability watch: each worker's vacation liability on the sweep's day",
    sql: `
      -- Written by the period sweep beside rm_period_watch, from the liability report's own
      -- figure (src/domain/liability.ts): the panel's home page adds it up in one query.
      CREATE TABLE rm_liability_watch (
        worker_id      bigint PRIMARY KEY,
        subgerencia_id text NOT NULL,
        value          bigint NOT NULL,
        advance        bigint NOT NULL
      );
    `,
  },
  {
    version: 72,
    name: 'period watch: periods whose year passed without 6 continuous days enjoyed',
    sql: `
      -- How many of the worker's periods carry the art. 190 warning of six continuous days
      -- (src/projections/reports/periods.ts); null when none. Every worker is figured again at
      -- the next sweep, which the forgotten reference version makes due at once.
      ALTER TABLE rm_period_watch ADD COLUMN six_days integer;
      CREATE INDEX rm_period_watch_six_days ON rm_period_watch (name, worker_id) WHERE six_days IS NOT NULL;
      UPDATE rm_period_watch_sweep SET reference_version = NULL;
    `,
  },
];
