import type { Migration } from '../db/types.ts';

/**
 * The web panel's accounts, invitations, sessions, sign-in throttle and cookie key. Version 5 is
 * the baseline: the schema as it stood at the first release, created directly. Frozen once applied
 * (test/unit/db/migrations.test.ts pins the hash of each): a change is a new migration under the
 * next free version number. The searches' indexes on the reference tables are the reference
 * data's (src/reference/migrations.ts). src/migrations.ts runs them with the other owners', in
 * version order.
 */
export const panelMigrations: Migration[] = [
  {
    version: 5,
    name: 'web panel: accounts, invitations, sessions, sign-in throttle',
    sql: `
      -- People who sign in to the panel: administrators of the reference data (ref_users), by
      -- e-mail, so that a re-import that renumbers nobody keeps their passwords.
      CREATE TABLE panel_accounts (
        email         text PRIMARY KEY CHECK (email = lower(email)),
        password_hash text NOT NULL,
        created_at    timestamptz NOT NULL DEFAULT now(),
        updated_at    timestamptz NOT NULL DEFAULT now(),
        last_sign_in  timestamptz,
        revoked_at    timestamptz
      );
      -- One-time links printed by 'vacaciones panel invite'; only the token's SHA-256 is kept.
      CREATE TABLE panel_invites (
        token_hash text PRIMARY KEY,
        email      text NOT NULL CHECK (email = lower(email)),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        used_at    timestamptz
      );
      CREATE INDEX panel_invites_email ON panel_invites (email);
      -- Sessions by the SHA-256 of their id: a copy of the table lets nobody in.
      CREATE TABLE panel_sessions (
        id_hash    text PRIMARY KEY,
        email      text,
        data       jsonb NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX panel_sessions_email ON panel_sessions (email);
      CREATE INDEX panel_sessions_expires ON panel_sessions (expires_at);
      -- Failed sign-ins per e-mail as typed (known or not, so the answer tells nothing) and client
      -- address, so that guesses from one place slow down and lock that place, never the person
      -- signing in from another.
      CREATE TABLE panel_sign_in_failures (
        email        text NOT NULL,
        failures     integer NOT NULL,
        last_failure timestamptz NOT NULL,
        locked_until timestamptz,
        client       text NOT NULL DEFAULT '',
        PRIMARY KEY (email, client)
      );
      CREATE INDEX panel_sign_in_failures_last ON panel_sign_in_failures (last_failure);
      -- The key that signs session cookies, shared by every instance and kept across restarts.
      CREATE TABLE panel_settings (
        id             integer PRIMARY KEY CHECK (id = 1),
        session_secret text NOT NULL
      );
    `,
  },
  {
    version: 41,
    name: 'web panel: roles (administrador, jefe, auditor) on accounts and invitations',
    sql: `
      -- What each person may do: every account made before roles is an administrator's, as it was.
      -- A jefe (area head) answers for some subgerencias; the others see every one.
      ALTER TABLE panel_accounts
        ADD COLUMN role  text   NOT NULL DEFAULT 'administrador' CHECK (role IN ('administrador', 'jefe', 'auditor')),
        ADD COLUMN units text[] NOT NULL DEFAULT '{}';
      ALTER TABLE panel_invites
        ADD COLUMN role  text   NOT NULL DEFAULT 'administrador' CHECK (role IN ('administrador', 'jefe', 'auditor')),
        ADD COLUMN units text[] NOT NULL DEFAULT '{}';
    `,
  },
];
