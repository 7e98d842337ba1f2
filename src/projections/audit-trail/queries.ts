import type { Queryable } from '../../db/types.ts';
import { selectList, toNumber, toNumberOrNull } from '../sql.ts';
import { AUDIT_COLUMNS, AUDIT_TABLE, type AuditAction } from './projector.ts';

export interface AuditEntry {
  eventId: string;
  /** Event store position as `commit/prepare`. */
  position: string;
  workerId: number;
  codigoPila: string | null;
  action: AuditAction;
  userId: number | null;
  userEmail: string | null;
  apiKeyName: string | null;
  requestId: string | null;
  correlationId: string | null;
  occurredAt: string | null;
  details: Record<string, unknown>;
}

const SELECT = `SELECT ${selectList(AUDIT_COLUMNS)} FROM ${AUDIT_TABLE}`;

const toEntry = (r: Record<string, unknown>): AuditEntry => ({
  eventId: r.event_id as string,
  position: `${r.commit_pos as string}/${r.prepare_pos as string}`,
  workerId: toNumber(r.worker_id),
  codigoPila: (r.codigo_pila as string | null) ?? null,
  action: r.action as AuditAction,
  userId: toNumberOrNull(r.user_id),
  userEmail: (r.user_email as string | null) ?? null,
  apiKeyName: (r.api_key_name as string | null) ?? null,
  requestId: (r.request_id as string | null) ?? null,
  correlationId: (r.correlation_id as string | null) ?? null,
  occurredAt: (r.occurred_at as string | null) ?? null,
  details: r.details as Record<string, unknown>,
});

/** The most recent `limit` entries about a worker, newest first. */
export async function auditOfWorker(q: Queryable, workerId: number, opts: { limit?: number } = {}): Promise<AuditEntry[]> {
  const r = await q.query<Record<string, unknown>>(`${SELECT} WHERE worker_id = $1 ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $2`, [
    workerId,
    opts.limit ?? 100,
  ]);
  return r.rows.map(toEntry);
}

/** The whole life of one record, oldest first. */
export async function auditOfCode(q: Queryable, code: string): Promise<AuditEntry[]> {
  const r = await q.query<Record<string, unknown>>(`${SELECT} WHERE codigo_pila = $1 ORDER BY commit_pos, prepare_pos`, [code]);
  return r.rows.map(toEntry);
}
