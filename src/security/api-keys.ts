import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { announce } from '../db/change-feed.ts';
import type { Queryable } from '../db/types.ts';

/**
 * API keys for the systems that call the service. Only a SHA-256 of each key is stored: the key is
 * 256 random bits, so a fast hash is as good as a slow one and keeps every request cheap.
 */

export const API_KEY_SCOPES = ['vacaciones', 'contratos:verificar', 'auditoria', 'eventos'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * What a key created without scopes gets: the calling systems' two. `auditoria` (verify the hash
 * chains, export an auditor's bundle: every event of a worker, personal data included) and
 * `eventos` (every record of every worker, as the change feed hands them out) are only ever
 * given by name.
 */
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = ['vacaciones', 'contratos:verificar'];

const KEY_PREFIX = 'vac_';
const KEY_PATTERN = /^vac_[A-Za-z0-9_-]{43}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

/** A request the operator can correct (bad name, unknown scope, duplicate, unknown key). */
export class ApiKeyError extends Error {
  override name = 'ApiKeyError';
}

export interface CreatedApiKey {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  userEmail: string | null;
  /** The only time the key itself exists outside the caller: it cannot be recovered later. */
  key: string;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  userEmail: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiKeyPrincipal {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  /**
   * The one person a key bound to a user acts as (`apikey create --usuario`), lower-cased; null for
   * a system's key, which may name any administrator as responsible, as the interface allows.
   */
  userEmail: string | null;
}

function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function isoTime(v: unknown): string {
  return v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();
}

function normaliseScopes(scopes: readonly string[] | undefined): ApiKeyScope[] {
  if (scopes === undefined || scopes.length === 0) return [...DEFAULT_API_KEY_SCOPES];
  const unknown = scopes.filter((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new ApiKeyError(
      `unknown scope ${unknown.map((s) => JSON.stringify(s)).join(', ')}: allowed scopes are ${API_KEY_SCOPES.join(', ')}`,
    );
  }
  // Stored in the canonical order so listings and comparisons do not depend on how they were typed.
  return API_KEY_SCOPES.filter((s) => scopes.includes(s));
}

/** The form of a key's bound e-mail, and of the responsible e-mail compared with it. */
export const boundEmail = (email: string) => email.trim().toLowerCase();

/**
 * Creates a key. `userEmail` binds it to one person: the caller checks first that the person is
 * an administrator of the reference data.
 */
export async function createApiKey(
  db: Queryable,
  opts: { name: string; scopes?: readonly string[]; userEmail?: string | null },
): Promise<CreatedApiKey> {
  const name = opts.name.trim();
  if (!NAME_PATTERN.test(name)) {
    throw new ApiKeyError(
      `invalid API key name ${JSON.stringify(opts.name)}: ` +
        'use 1 to 64 letters, digits, ".", "_", ":", "@" or "-", starting with a letter or digit',
    );
  }
  const scopes = normaliseScopes(opts.scopes);
  const existing = await db.query<{ revoked_at: unknown }>('SELECT revoked_at FROM api_keys WHERE name = $1', [name]);
  if (existing.rows[0]) throw nameTaken(name, existing.rows[0].revoked_at !== null);
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const id = randomUUID();
  const userEmail = opts.userEmail ? boundEmail(opts.userEmail) : null;
  try {
    await db.query('INSERT INTO api_keys (id, name, key_hash, prefix, scopes, user_email) VALUES ($1, $2, $3, $4, $5::text[], $6)', [
      id,
      name,
      hashKey(key),
      key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8),
      scopes,
      userEmail,
    ]);
  } catch (err) {
    // Another operator created the same name between the check and the insert.
    if ((err as { code?: string }).code === '23505') throw nameTaken(name, false);
    throw err;
  }
  return { id, name, scopes, userEmail, key };
}

function nameTaken(name: string, revoked: boolean): ApiKeyError {
  // Names stay unique forever so that audit records naming a key never become ambiguous.
  return new ApiKeyError(
    revoked
      ? `API key name ${JSON.stringify(name)} belonged to a revoked key; names are never reused, choose another`
      : `an API key named ${JSON.stringify(name)} already exists`,
  );
}

/** Every key, newest first, without the key or its hash. */
export async function listApiKeys(db: Queryable): Promise<ApiKeyInfo[]> {
  const r = await db.query<{
    id: string;
    name: string;
    prefix: string;
    scopes: string[];
    user_email: string | null;
    created_at: unknown;
    revoked_at: unknown;
  }>('SELECT id, name, prefix, scopes, user_email, created_at, revoked_at FROM api_keys ORDER BY created_at DESC, name');
  return r.rows.map((row) => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes as ApiKeyScope[],
    userEmail: row.user_email,
    createdAt: isoTime(row.created_at),
    revokedAt: row.revoked_at === null ? null : isoTime(row.revoked_at),
  }));
}

/** Revokes the key at once; revoking an already revoked key keeps its first revocation time. */
export async function revokeApiKey(db: Queryable, name: string): Promise<{ name: string; revokedAt: string; alreadyRevoked: boolean }> {
  const r = await db.query<{ revoked_at: unknown; already: boolean }>(
    `WITH before AS (SELECT id, revoked_at FROM api_keys WHERE name = $1 FOR UPDATE)
     UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now()) FROM before WHERE k.id = before.id
     RETURNING k.revoked_at, before.revoked_at IS NOT NULL AS already`,
    [name.trim()],
  );
  const row = r.rows[0];
  if (!row) throw new ApiKeyError(`no API key named ${JSON.stringify(name.trim())}`);
  // Running servers drop any cached verification of the key when they hear this.
  await db.query(announce('api_keys'));
  return { name: name.trim(), revokedAt: isoTime(row.revoked_at), alreadyRevoked: row.already };
}

/** The key's owner and scopes, or null for anything that is not a live key. */
export async function verifyApiKey(db: Queryable, presentedKey: string): Promise<ApiKeyPrincipal | null> {
  if (typeof presentedKey !== 'string' || !KEY_PATTERN.test(presentedKey)) return null;
  const digest = hashKey(presentedKey);
  const r = await db.query<{
    id: string;
    name: string;
    scopes: string[];
    user_email: string | null;
    key_hash: string;
    revoked_at: unknown;
  }>('SELECT id, name, scopes, user_email, key_hash, revoked_at FROM api_keys WHERE key_hash = $1', [digest]);
  const row = r.rows[0];
  if (!row || row.revoked_at !== null) return null;
  // The index lookup already matched; this guards against any collation or comparison surprise.
  const stored = Buffer.from(row.key_hash, 'hex');
  const given = Buffer.from(digest, 'hex');
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null;
  return { id: row.id, name: row.name, scopes: row.scopes as ApiKeyScope[], userEmail: row.user_email };
}

/** The key from `Authorization: Bearer <key>`, or null when the header has any other form. */
export function parseAuthorizationHeader(value: string | undefined | null): string | null {
  if (typeof value !== 'string') return null;
  const m = /^bearer +(\S+)$/i.exec(value);
  return m ? m[1]! : null;
}

/** True when a principal may use an endpoint guarded by `scope`. */
export function hasScope(principal: Pick<ApiKeyPrincipal, 'scopes'>, scope: ApiKeyScope): boolean {
  return principal.scopes.includes(scope);
}
