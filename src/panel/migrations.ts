import type { Migration } from '../db/types.ts';

/**
 * The web panel's accounts, invitations, sessions and sign-in throttle, and the indexes its
 * searches use. Frozen: the text of an applied migration never
 * changes (test/unit/db/migrations.test.ts pins the hash of each); a change is a new migration
 * under the next free version number. src/db/migrations.ts runs them with the other owners', in
 * version order.
 */
export const panelMigrations: Migration[] = [
  {
    version: 22,
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
      -- Failed sign-ins per e-mail as typed (known or not, so the answer tells nothing).
      CREATE TABLE panel_sign_in_failures (
        email        text PRIMARY KEY,
        failures     integer NOT NULL,
        last_failure timestamptz NOT NULL,
        locked_until timestamptz
      );
      -- The key that signs session cookies, shared by every instance and kept across restarts.
      CREATE TABLE panel_settings (
        id             integer PRIMARY KEY CHECK (id = 1),
        session_secret text NOT NULL
      );
      -- The panel's searches and the occupancy grid: bounded index scans, never a pass over every
      -- worker. Names are compared without case or accents.
      CREATE INDEX ref_workers_last_names_search ON ref_workers
        (lower(translate(last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_first_names_search ON ref_workers
        (lower(translate(first_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_workers_full_name_search ON ref_workers
        (lower(translate(first_names || ' ' || last_names, 'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun')) text_pattern_ops);
      CREATE INDEX ref_contracts_subgerencia ON ref_contracts (subgerencia_id, company_contract_id);
      -- When an import last changed the reference data (every such import bumps the version).
      ALTER TABLE ref_version ADD COLUMN changed_at timestamptz;
      CREATE FUNCTION ref_version_changed_at() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        IF NEW.version IS DISTINCT FROM OLD.version THEN NEW.changed_at := now(); END IF;
        RETURN NEW;
      END
      $fn$;
      CREATE TRIGGER ref_version_changed_at BEFORE UPDATE ON ref_version
        FOR EACH ROW EXECUTE FUNCTION ref_version_changed_at();
    `,
  },
  {
    version: 24,
    name: 'web panel: documents found by their beginning, sign-in failures per address',
    sql: `
      -- The search by the beginning of a document number: a range of this index, read in its order.
      CREATE INDEX ref_workers_document_prefix ON ref_workers (document_number text_pattern_ops);
      -- Failed sign-ins counted per e-mail and client address, so that guesses from one place
      -- slow down and lock that place, never the person signing in from another. Rows kept from
      -- before have no address: nobody's, they are swept with the stale ones.
      ALTER TABLE panel_sign_in_failures ADD COLUMN client text NOT NULL DEFAULT '';
      ALTER TABLE panel_sign_in_failures DROP CONSTRAINT panel_sign_in_failures_pkey;
      ALTER TABLE panel_sign_in_failures ADD PRIMARY KEY (email, client);
      CREATE INDEX panel_sign_in_failures_last ON panel_sign_in_failures (last_failure);
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
