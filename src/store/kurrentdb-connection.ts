import type { LeaderAddress } from './kurrentdb-errors.ts';

/** What the adapter reads from a KURRENTDB_URL connection string, and the string aimed elsewhere. */

/**
 * The connection string aimed at one node, the leader a refusal named: same scheme (without DNS
 * discovery, which would look the cluster up again), credentials and options, that one host.
 */
export function towardsLeader(connectionString: string, leader: LeaderAddress): string {
  const m = /^([a-z][a-z0-9.-]*?)(\+discover)?:\/\/((?:[^@/?]*@)?)([^/?]+)(.*)$/i.exec(connectionString.trim());
  if (!m) return connectionString;
  return `${m[1]}://${m[3]}${leader.host}:${leader.port}${m[5]}`;
}

/** `kurrentdb://user:pass@host:2113?tls=false` → `host:2113`, never the credentials. */
export function hostOf(connectionString: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?]*@)?([^/?]+)/i.exec(connectionString.trim());
  return m ? m[1]! : '<unparsable connection string>';
}

/** The client's deadline for each call when the connection string sets none (its `defaultDeadline`). */
export const DEFAULT_DEADLINE_MS = 10_000;

/** The connection string's `defaultDeadline` (ms), which the client applies to appends: reads get the same. */
export function deadlineOf(connectionString: string): number {
  const m = /[?&]defaultDeadline=(\d+)/i.exec(connectionString);
  const ms = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(ms) && ms > 0 ? ms : DEFAULT_DEADLINE_MS;
}
