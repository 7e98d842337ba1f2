import { createHash, randomBytes } from 'node:crypto';
import { ROLES, type Access, type Role } from './roles.ts';
import { decoyHash, hashPassword, normalEmail, verifyPassword, madeOtherwise } from './passwords.ts';
import type { Db, Queryable } from '../db/types.ts';
import { ReferenceRepository } from '../reference/repository.ts';

/**
 * Panel accounts: an administrator of the reference data gets a one-time link from the operator
 * (`vacaciones panel invite`), sets a password with it, and signs in with e-mail and password.
 * Passwords are kept as scrypt hashes; invitation tokens and session ids only as SHA-256 (they
 * are 256 random bits, so a fast hash is as strong as a slow one).
 */

/** A request the operator or the person can correct; its message is shown as it is. */
export class PanelAccountError extends Error {
  override name = 'PanelAccountError';
}

export const INVITE_VALID_HOURS = 24;
/**
 * Failures of one e-mail from one client address answered at once; from then on each waits twice
 * as long as the one before, never longer than a lock.
 */
export const FREE_FAILURES = 3;
/** Failures in a row after which the e-mail is locked for LOCK_MINUTES at that address. */
export const LOCK_AFTER_FAILURES = 10;
export const LOCK_MINUTES = 15;
/** Failures are forgotten once this long has passed without another (and no lock is on). */
export const FORGET_FAILURES_HOURS = 24;

export const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** A role as the operator asked for it: a jefe answers for at least one subgerencia that exists; the others for none in particular. */
async function checkAccess(db: Queryable, access: Access): Promise<void> {
  if (!ROLES.includes(access.role)) throw new PanelAccountError(`--rol must be one of ${ROLES.join(', ')}`);
  if (access.role !== 'jefe') {
    if (access.units.length > 0)
      throw new PanelAccountError('--subgerencia applies only to --rol jefe, who answers for those subgerencias');
    return;
  }
  if (access.units.length === 0)
    throw new PanelAccountError('--rol jefe needs --subgerencia <id> (one or more): the subgerencias this person answers for');
  const known = await db.query<{ id: string }>('SELECT id FROM ref_subgerencias WHERE id = ANY($1)', [[...access.units]]);
  const missing = access.units.filter((u) => !known.rows.some((k) => k.id === u));
  if (missing.length > 0) throw new PanelAccountError(`no subgerencia with id ${missing.join(', ')} in the reference data`);
}

async function administrator(db: Queryable, email: string) {
  const user = await new ReferenceRepository(db).userByEmail(email);
  return user?.isAdmin ? user : null;
}

export interface Invitation {
  email: string;
  token: string;
  expiresAt: Date;
}

/** Links not yet used stop working (a new one was issued, or one of them set the password). */
const cancelPendingInvites = (db: Queryable, email: string) =>
  db.query('UPDATE panel_invites SET used_at = now() WHERE email = $1 AND used_at IS NULL', [email]);

/**
 * A one-time token for an administrator of the reference data, valid INVITE_VALID_HOURS hours.
 * Earlier links for the same e-mail stop working: only the latest one sent can set the password.
 */
export async function createInvite(
  db: Db,
  email: string,
  now = new Date(),
  access: Access = { role: 'administrador', units: [] },
): Promise<Invitation> {
  const user = await administrator(db, email);
  if (!user) throw new PanelAccountError(`${email} is not an administrator in the reference data: only administrators may use the panel`);
  await checkAccess(db, access);
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + INVITE_VALID_HOURS * 3600_000);
  const address = normalEmail(user.email);
  await db.transaction(async (tx) => {
    await cancelPendingInvites(tx, address);
    await tx.query('INSERT INTO panel_invites (token_hash, email, created_at, expires_at, role, units) VALUES ($1, $2, $3, $4, $5, $6)', [
      sha256(token),
      address,
      now.toISOString(),
      expiresAt.toISOString(),
      access.role,
      [...access.units],
    ]);
  });
  return { email: address, token, expiresAt };
}

/** The e-mail a live (unused, unexpired) token was issued for. */
export async function invitedEmail(db: Queryable, token: string): Promise<string | null> {
  const r = await db.query<{ email: string }>(
    'SELECT email FROM panel_invites WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()',
    [sha256(token)],
  );
  return r.rows[0]?.email ?? null;
}

/**
 * Uses the token once: sets the account's password (creating or re-opening the account), ends
 * the account's sessions, so that a link doubles as a password reset, and makes any other link
 * for the e-mail stop working. Null when the token is not live, or its e-mail is no longer an
 * administrator.
 */
export async function acceptInvite(db: Db, token: string, password: string): Promise<string | null> {
  const hash = await hashPassword(password);
  return db.transaction(async (tx) => {
    const r = await tx.query<{ email: string; role: string; units: string[] }>(
      'UPDATE panel_invites SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING email, role, units',
      [sha256(token)],
    );
    const invite = r.rows[0];
    const email = invite?.email;
    if (!invite || !email || !(await administrator(tx, email))) return null;
    // The role is the invitation's: a new invitation is how an operator changes it.
    await tx.query(
      `INSERT INTO panel_accounts (email, password_hash, role, units) VALUES ($1, $2, $3, $4)
       ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = EXCLUDED.role, units = EXCLUDED.units,
         updated_at = now(), revoked_at = NULL`,
      [email, hash, invite.role, invite.units],
    );
    await cancelPendingInvites(tx, email);
    await tx.query('DELETE FROM panel_sessions WHERE email = $1', [email]);
    await tx.query('DELETE FROM panel_sign_in_failures WHERE email = $1', [email]);
    return email;
  });
}

export type SignInResult =
  | { ok: true; email: string }
  /** `lockedNow`: this failure locked the e-mail at the address. */
  | { ok: false; reason: 'invalid'; lockedNow: boolean }
  | { ok: false; reason: 'wait'; seconds: number }
  | { ok: false; reason: 'locked'; minutes: number };

/** Seconds a failure makes the next attempt wait: doubling from the first beyond the free ones, capped at a lock. */
const WAIT_SECONDS = `least(power(2, f.failures - $4 + 1), $3 * 60)`;

/**
 * Checks e-mail and password from a client address (`clientOf`). Each attempt is counted against
 * the e-mail at that address before the password is checked, in one statement that also refuses
 * it while that pair must wait or is locked, so parallel guesses cannot slip between the check and
 * the count; guesses from one address never lock the person out at another. Unknown e-mails are
 * counted and hashed like known ones: neither the answer nor its timing says which part was wrong.
 */
export async function signIn(db: Queryable, emailTyped: string, password: string, client: string): Promise<SignInResult> {
  const email = normalEmail(emailTyped).slice(0, 320);
  const claimed = await db.query<{ failures: number }>(
    `INSERT INTO panel_sign_in_failures AS f (email, client, failures, last_failure) VALUES ($1, $5, 1, now())
     ON CONFLICT (email, client) DO UPDATE SET
       failures = f.failures + 1,
       last_failure = now(),
       locked_until = CASE WHEN f.failures + 1 >= $2 THEN now() + make_interval(mins => $3) END
     WHERE (f.locked_until IS NULL OR f.locked_until <= now())
       AND (f.failures < $4 OR f.last_failure + make_interval(secs => ${WAIT_SECONDS}) <= now())
     RETURNING failures`,
    [email, LOCK_AFTER_FAILURES, LOCK_MINUTES, FREE_FAILURES, client],
  );
  if (claimed.rows.length === 0) return refusal(db, email, client);

  const account = await db.query<{ password_hash: string }>(
    'SELECT password_hash FROM panel_accounts WHERE email = $1 AND revoked_at IS NULL',
    [email],
  );
  const stored = account.rows[0]?.password_hash;
  const matches = await verifyPassword(password, stored ?? (await decoyHash()));
  if (!stored || !matches || !(await administrator(db, email))) {
    // The wait runs from the answer, not from the claim: the hash alone takes about a second.
    await db.query('UPDATE panel_sign_in_failures SET last_failure = now() WHERE email = $1 AND client = $2', [email, client]);
    return { ok: false, reason: 'invalid', lockedNow: claimed.rows[0]!.failures >= LOCK_AFTER_FAILURES };
  }
  await db.query('DELETE FROM panel_sign_in_failures WHERE email = $1 AND client = $2', [email, client]);
  // The password is at hand only now: a hash made with an earlier release's settings is redone.
  if (madeOtherwise(stored)) {
    await db.query('UPDATE panel_accounts SET password_hash = $2 WHERE email = $1 AND password_hash = $3', [
      email,
      await hashPassword(password),
      stored,
    ]);
  }
  await db.query('UPDATE panel_accounts SET last_sign_in = now() WHERE email = $1', [email]);
  return { ok: true, email };
}

async function refusal(db: Queryable, email: string, client: string): Promise<SignInResult> {
  const r = await db.query<{ locked: unknown; wait: unknown }>(
    `SELECT ceil(extract(epoch FROM f.locked_until - now()) / 60) AS locked,
            ceil(extract(epoch FROM f.last_failure + make_interval(secs => ${WAIT_SECONDS}) - now())) AS wait
       FROM panel_sign_in_failures f WHERE f.email = $1 AND f.client = $2`,
    [email, client, LOCK_MINUTES, FREE_FAILURES],
  );
  const row = r.rows[0];
  const locked = Number(row?.locked ?? 0);
  if (locked > 0) return { ok: false, reason: 'locked', minutes: locked };
  return { ok: false, reason: 'wait', seconds: Math.max(1, Number(row?.wait ?? 1)) };
}

/** Drops failures nobody has added to for FORGET_FAILURES_HOURS, unless a lock is still on. */
export async function forgetStaleFailures(db: Queryable): Promise<number> {
  const r = await db.query(
    `DELETE FROM panel_sign_in_failures
      WHERE last_failure < now() - make_interval(hours => $1) AND (locked_until IS NULL OR locked_until <= now())`,
    [FORGET_FAILURES_HOURS],
  );
  return r.rowCount;
}

export interface AccountInfo {
  role: Role;
  units: string[];
  email: string;
  createdAt: string;
  lastSignIn: string | null;
  revokedAt: string | null;
  lockedUntil: string | null;
}

const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

export async function listAccounts(db: Queryable): Promise<AccountInfo[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT a.email, a.role, a.units, a.created_at, a.last_sign_in, a.revoked_at, f.locked_until
       FROM panel_accounts a
       LEFT JOIN (SELECT email, max(locked_until) AS locked_until FROM panel_sign_in_failures WHERE locked_until > now() GROUP BY email) f
         ON f.email = a.email
      ORDER BY a.email`,
  );
  return r.rows.map((row) => ({
    email: row.email as string,
    role: row.role as Role,
    units: row.units as string[],
    createdAt: iso(row.created_at)!,
    lastSignIn: iso(row.last_sign_in),
    revokedAt: iso(row.revoked_at),
    lockedUntil: iso(row.locked_until),
  }));
}

export interface PendingInvite {
  email: string;
  createdAt: string;
  expiresAt: string;
}

export async function pendingInvites(db: Queryable): Promise<PendingInvite[]> {
  const r = await db.query<Record<string, unknown>>(
    'SELECT email, created_at, expires_at FROM panel_invites WHERE used_at IS NULL AND expires_at > now() ORDER BY created_at',
  );
  return r.rows.map((row) => ({ email: row.email as string, createdAt: iso(row.created_at)!, expiresAt: iso(row.expires_at)! }));
}

/** Closes the account at once: its sessions end and its pending links stop working. */
export async function revokeAccount(db: Db, emailTyped: string): Promise<{ sessions: number; invites: number; account: boolean }> {
  const email = normalEmail(emailTyped);
  return db.transaction(async (tx) => {
    const a = await tx.query('UPDATE panel_accounts SET revoked_at = now() WHERE email = $1 AND revoked_at IS NULL', [email]);
    const i = await cancelPendingInvites(tx, email);
    const s = await tx.query('DELETE FROM panel_sessions WHERE email = $1', [email]);
    if (a.rowCount === 0 && i.rowCount === 0) {
      const known = await tx.query('SELECT 1 FROM panel_accounts WHERE email = $1', [email]);
      if (known.rows.length === 0) throw new PanelAccountError(`no panel account or pending invitation for ${email}`);
    }
    return { sessions: s.rowCount, invites: i.rowCount, account: a.rowCount > 0 };
  });
}

/** The key that signs session cookies: made once, kept in the database for every instance. */
export async function sessionSecret(db: Queryable): Promise<string> {
  await db.query('INSERT INTO panel_settings (id, session_secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [
    randomBytes(32).toString('base64url'),
  ]);
  const r = await db.query<{ session_secret: string }>('SELECT session_secret FROM panel_settings WHERE id = 1');
  return r.rows[0]!.session_secret;
}
