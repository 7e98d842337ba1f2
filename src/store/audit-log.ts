import type { AuditLog } from './audit-log-types.ts';
import { PostgresAuditLog } from './postgres-audit.ts';
import type { EventStore } from './types.ts';

export type { AuditLog, EventsQuery, LogSnapshot, StreamScope } from './audit-log-types.ts';

/**
 * The reads an audit of the log makes where the log is kept in a database (PostgreSQL, PGlite):
 * chains recomputed, heads gathered and bundles read by the database itself, instead of every
 * event travelling out. A store that keeps its events elsewhere (KurrentDB) has none; its log is
 * audited through the port's reads.
 */
export function auditLogOf(store: EventStore): AuditLog | undefined {
  const db = store.logDatabase();
  return db ? new PostgresAuditLog(db) : undefined;
}
