import type { Migration } from '../../../db/types.ts';

export const eventStore: Migration = {
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
};
