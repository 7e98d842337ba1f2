import { createHash } from 'node:crypto';

/**
 * The hash chain of every stream. Each stored event carries
 *
 *   hash = SHA-256(hash of the stream's previous event ‖ UTF-8 of canonicalEvent(event))
 *
 * where the first event of a stream (revision 0) has nothing before it (an empty prefix), so
 * changing, removing or reordering any event of a stream changes the hash of every event after
 * it. On PostgreSQL and PGlite the append computes it (migration 17: `vac_event_canonical` and the
 * `vac_chain` aggregate); on KurrentDB the adapter computes it here and stores it in the event's
 * metadata. Verifiers (the CLI, offline bundles) recompute it here.
 *
 * The canonical JSON is PostgreSQL's own text form of a `jsonb` value, which the database
 * produces in C at no cost to the append, and which this module writes the same from the parsed
 * value:
 * - object keys sorted shorter first (in UTF-8 bytes), then byte by byte; each key once;
 * - `", "` between members and items, `": "` after keys, nothing else between tokens;
 * - strings escaped as JSON.stringify escapes them (`\"`, `\\`, `\b \f \n \r \t`, other
 *   controls as `\u00xx`; everything else as is, in UTF-8);
 * - numbers in plain decimal notation, never an exponent (`1e21` is `1000000000000000000000`,
 *   `1e-7` is `0.0000001`), with the digits of the shortest form that reads back as the same
 *   double (what JSON.stringify writes and what jsonb keeps);
 * - `true`, `false`, `null`.
 * What JSON.stringify would leave out (undefined members, functions) is left out, as the data
 * stored is that JSON.
 */

/** The fields of an event that its hash covers. */
export interface ChainedFields {
  stream: string;
  revision: number;
  type: string;
  version: number;
  data: unknown;
  metadata: unknown;
}

export function canonicalEvent(e: ChainedFields): string {
  return canonicalJson({ stream: e.stream, revision: e.revision, type: e.type, version: e.version, data: e.data, metadata: e.metadata });
}

/** The hash of an event following `previous` (the previous event's hash as hex; '' for the first). */
export function chainHash(previous: string, e: ChainedFields): string {
  const h = createHash('sha256');
  if (previous) h.update(Buffer.from(previous, 'hex'));
  return h.update(canonicalEvent(e), 'utf8').digest('hex');
}

export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(v: unknown, out: string[]): void {
  switch (typeof v) {
    case 'string':
      out.push(JSON.stringify(v));
      return;
    case 'number':
      out.push(Number.isFinite(v) ? plainNumber(v) : 'null');
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'bigint':
      throw new TypeError('a BigInt has no JSON form');
    case 'object':
      break;
    default:
      // undefined, functions and symbols: JSON.stringify writes null in arrays (and at the top).
      out.push('null');
      return;
  }
  if (v === null) {
    out.push('null');
    return;
  }
  const withJson = v as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') {
    write(withJson.toJSON(), out);
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(', ');
      write(v[i], out);
    }
    out.push(']');
    return;
  }
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => {
    const t = typeof obj[k];
    return t !== 'undefined' && t !== 'function' && t !== 'symbol';
  });
  keys.sort(compareKeys);
  out.push('{');
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out.push(', ');
    out.push(JSON.stringify(k), ': ');
    write(obj[k], out);
  }
  out.push('}');
}

function ascii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** jsonb's order of object keys: shorter first in UTF-8 bytes, then byte by byte. */
export function compareKeys(a: string, b: string): number {
  if (ascii(a) && ascii(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length - bb.length || Buffer.compare(ba, bb);
}

/** Byte order of UTF-8, which is code point order (PostgreSQL's `COLLATE "C"`). */
export function compareUtf8(a: string, b: string): number {
  if (ascii(a) && ascii(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** The shortest round-trip digits of a double, written without an exponent, as numeric prints them. */
export function plainNumber(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const negative = s.startsWith('-');
  const mantissa = s.slice(negative ? 1 : 0, e);
  const exponent = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  // Where the decimal point falls, counted in digits from the left of `digits`.
  const point = (dot < 0 ? mantissa.length : dot) + exponent;
  let plain: string;
  if (point <= 0) plain = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) plain = digits + '0'.repeat(point - digits.length);
  else plain = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${plain}` : plain;
}
