import type { Migration } from '../db/types.ts';

/**
 * The API keys table (src/security/api-keys.ts). Version 3 is the baseline: the schema as it stood
 * at the first release, created directly. Frozen once applied (test/unit/db/migrations.test.ts pins
 * the hash of each): a change is a new migration under the next free version number.
 * src/migrations.ts runs them with the other owners', in version order.
 */
export const apiKeyMigrations: Migration[] = [
  {
    version: 3,
    name: 'api keys, each bound to a user',
    sql: `
      CREATE TABLE api_keys (
        id         uuid PRIMARY KEY,
        name       text NOT NULL UNIQUE,
        key_hash   text NOT NULL UNIQUE,
        prefix     text NOT NULL,
        scopes     text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        user_email text
      );
    `,
  },
];
