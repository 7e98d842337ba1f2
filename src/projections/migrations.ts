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
];
