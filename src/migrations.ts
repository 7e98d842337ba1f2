import { applyMigrations } from './db/migrations.ts';
import type { Db, Migration } from './db/types.ts';
import { idempotencyMigrations } from './http/idempotency-records.ts';
import { webhookMigrations } from './integration/webhooks/migrations.ts';
import { panelMigrations } from './panel/migrations.ts';
import { projectionMigrations } from './projections/migrations.ts';
import { referenceMigrations } from './reference/migrations.ts';
import { apiKeyMigrations } from './security/migrations.ts';
import { eventStoreMigrations } from './store/postgres-schema/migrations.ts';

export type { Migration } from './db/types.ts';

/**
 * Every migration of the service, in version order. Each owner of tables keeps its own, with the
 * SQL as it was applied: the event store (events, streams, record ids, the append functions, the
 * hash chain), the reference data, the API keys, the projections' checkpoints, the panel, the
 * idempotency records and the webhooks. Each owner starts from a baseline, the schema as it stood
 * at the first release (versions 1 to 6 and the webhooks' 40); a change is a new migration under a
 * free number above those applied. Versions are one rising sequence across owners. The schema
 * they build together is test/integration/db/__snapshots__/schema.txt: a migration changes it.
 */
export const migrations: Migration[] = [
  ...eventStoreMigrations,
  ...referenceMigrations,
  ...apiKeyMigrations,
  ...projectionMigrations,
  ...panelMigrations,
  ...idempotencyMigrations,
  ...webhookMigrations,
].sort((a, b) => a.version - b.version);

// Versions rise without repeats; a gap is allowed, so that work going on at once can take numbers
// far apart (the webhooks' start at 40) and merge without renumbering.
migrations.forEach((m, i) => {
  const before = migrations[i - 1];
  if (before !== undefined && m.version === before.version)
    throw new Error(`two migrations take version ${m.version}: ${before.name} and ${m.name}`);
});

/** Brings the database's schema up to this service's: the migrations it has not applied (src/db/migrations.ts). */
export function migrate(db: Db, list: Migration[] = migrations): Promise<number[]> {
  return applyMigrations(db, list);
}
