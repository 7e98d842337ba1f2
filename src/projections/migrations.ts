import type { Migration } from '../db/types.ts';

/**
 * The projections' checkpoints, and changes to read models already projected. The read models'
 * own tables are created by their projectors' runners (each projector's `tables`). Frozen: the text of an applied migration never
 * changes (test/unit/db/migrations.test.ts pins the hash of each); a change is a new migration
 * under the next free version number. src/db/migrations.ts runs them with the other owners', in
 * version order.
 */
export const projectionMigrations: Migration[] = [
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
    version: 27,
    name: 'availability read model dropped',
    sql: `
      -- Days taken per worker were summed a second time here, in SQL, beside the ledger that gives
      -- every balance (src/domain/ledger.ts); consult now reads the workers' live records instead.
      DROP TABLE IF EXISTS rm_availability, rm_availability_records, rm_availability__rebuild, rm_availability_records__rebuild;
      DELETE FROM projection_checkpoints WHERE name = 'availability';
    `,
  },
];
