import { APPEND_LOCK } from '../../db/advisory-locks.ts';

/**
 * vac_claim_append as the database runs it: the append lock taken by a transaction that writes
 * other rows before it appends (the reference-data import), so that readers of the log wait for
 * it as for any append. Created by the baseline, migrations.ts.
 *
 * Editing this text edits an applied migration: see the note at the top of migrations.ts.
 */
export const vacClaimAppendSql = `      CREATE OR REPLACE FUNCTION vac_claim_append() RETURNS void LANGUAGE sql AS $$
        SELECT pg_advisory_xact_lock_shared(${APPEND_LOCK.namespace}, ${APPEND_LOCK.id})
      $$;
`;
