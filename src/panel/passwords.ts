import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Passwords of the panel's accounts: how they are hashed and which ones a person may choose. */

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/**
 * scrypt at one of OWASP's equal-strength settings (N=2^16, r=8, p=2): the work of its first
 * choice (N=2^17, p=1) in half the memory, 64 MiB outside the heap and about a second of one core
 * per hash here. The server's peak memory is one sign-in's hash above its own: N=2^17, r=8 took it
 * past its memory bound at a large employer (docs/benchmarks.md). Hashes made otherwise are redone at the next sign-in (`signIn`).
 */
const SCRYPT: ScryptOptions = { N: 2 ** 16, r: 8, p: 2, maxmem: 160 * 1024 * 1024 };
/**
 * Hashes computed at once: each takes 64 MiB outside the heap (128 MiB for one made at N=2^17
 * until it is redone), so a burst of sign-ins (or of guesses, which are hashed too) waits its turn
 * instead of taking the memory of many.
 */
const HASHES_AT_ONCE = 2;
const KEY_LENGTH = 32;

export const normalEmail = (email: string) => email.trim().toLowerCase();

let hashing = 0;
const waiting: (() => void)[] = [];

async function scryptAsync(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  if (hashing >= HASHES_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  try {
    return await new Promise((resolve, reject) =>
      scrypt(password.normalize('NFC'), salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    // The slot passes to the next in line, or is given back.
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

/**
 * Whether a stored hash was made with other settings than hashPassword's now: less work by an
 * earlier release, or N=2^17 (twice the memory for the same work).
 */
export function madeOtherwise(stored: string): boolean {
  const [, n, r, p] = stored.split('$');
  return Number(n) !== SCRYPT.N || Number(r) !== SCRYPT.r || Number(p) !== SCRYPT.p;
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url: the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches, compared against when the e-mail has no account, so both take as long. */
let decoy: Promise<string> | undefined;
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(32).toString('hex')));

/** Fewest different characters a password may have: twelve `a` or `ababab…` are guessed first. */
export const MIN_DISTINCT_CHARACTERS = 4;

/**
 * The commonest passwords (some 49,000, from breaches, lower case), from zxcvbn-ts's common list:
 * loaded when a password is first set, not at start, since few processes ever set one.
 */
let common: Promise<ReadonlySet<string>> | undefined;
const commonPasswords = () =>
  (common ??= import('@zxcvbn-ts/language-common').then((m) => new Set(m.dictionary['passwords-common'] as string[])));

/** The password rules, in Spanish, or null when `email`'s person may use it. */
export async function passwordProblem(password: string, confirmation: string, email: string): Promise<string | null> {
  if (password.length < MIN_PASSWORD_LENGTH) return `La contraseña debe tener al menos ${MIN_PASSWORD_LENGTH} caracteres.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `La contraseña puede tener como máximo ${MAX_PASSWORD_LENGTH} caracteres.`;
  if (password.trim() === '') return 'La contraseña no puede ser solo espacios.';
  const lower = password.trim().toLowerCase();
  if (lower.includes(normalEmail(email))) return 'La contraseña no puede contener su correo.';
  if (new Set(lower).size < MIN_DISTINCT_CHARACTERS) {
    return `La contraseña debe tener al menos ${MIN_DISTINCT_CHARACTERS} caracteres distintos.`;
  }
  if ((await commonPasswords()).has(lower)) return 'Esa contraseña está entre las más usadas y se adivina pronto: elija otra.';
  if (password !== confirmation) return 'La confirmación no coincide con la contraseña.';
  return null;
}
