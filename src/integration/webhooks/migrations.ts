import type { Migration } from '../../db/types.ts';

/**
 * The integration's tables: the webhook subscriptions, each with its delivery position in the
 * log, the events given up on, and the key that signs the change feed's cursors. Frozen: the text of an applied migration never changes (test/unit/db/migrations.test.ts pins
 * the hash of each); a change is a new migration under a free version number.
 */
export const webhookMigrations: Migration[] = [
  {
    version: 40,
    name: 'webhook subscriptions, delivery positions and dead letters',
    sql: `
      -- One row per subscription. The secret signs each delivery (Standard Webhooks), so it is kept
      -- as given out, once. (commit_pos, prepare_pos) is the log position of the last event handled:
      -- delivered or given up on; it moves in the same statement or transaction that records how.
      CREATE TABLE webhooks (
        id               uuid PRIMARY KEY,
        name             text NOT NULL UNIQUE,
        url              text NOT NULL,
        secret           text NOT NULL,
        types            text[],
        commit_pos       bigint NOT NULL,
        prepare_pos      bigint NOT NULL,
        failures         integer NOT NULL DEFAULT 0,
        first_failure_at timestamptz,
        next_attempt_at  timestamptz,
        last_error       text,
        delivered        bigint NOT NULL DEFAULT 0,
        created_at       timestamptz NOT NULL DEFAULT now()
      );
      -- The events a subscription gave up on after retrying for the whole window.
      CREATE TABLE webhook_dead_letters (
        webhook_id  uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
        event_id    text NOT NULL,
        type        text NOT NULL,
        commit_pos  bigint NOT NULL,
        prepare_pos bigint NOT NULL,
        attempts    integer NOT NULL,
        last_error  text,
        failed_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (webhook_id, event_id)
      );
    `,
  },
  {
    version: 50,
    name: 'the change feed cursor key',
    sql: `
      -- The key of the HMAC each cursor of the change feed carries, so that one edited by hand is
      -- refused: made once by the service (random), shared by every instance on this database.
      CREATE TABLE feed_settings (
        id            smallint PRIMARY KEY CHECK (id = 1),
        cursor_secret text NOT NULL
      );
    `,
  },
];
