import { createHash } from 'node:crypto';

/**
 * The hash chain of every stream. Each stored event carries
 *
 *   hash = SHA-256(hash of the stream's previous event ‖ UTF-8 of canonicalEvent(event))
 *
 * where the first event of a stream (revision 0) has nothing before it (an empty prefix), so
 * changing, removing or reordering any event of a stream changes the hash of every event after
 * it. On PostgreSQL and PGlite the append computes it (postgres-schema/vac-chain.ts: `vac_event_canonical` and the
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

/**
 * The envelope's keys in jsonb's order (data and type, stream, version, then metadata and
 * revision), written directly: the same text as canonicalJson of the whole object.
 */
export function canonicalEvent(e: ChainedFields): string {
  return (
    `{"data": ${canonicalJson(e.data)}, "type": ${JSON.stringify(e.type)}, "stream": ${JSON.stringify(e.stream)}, ` +
    `"version": ${canonicalJson(e.version)}, "metadata": ${canonicalJson(e.metadata)}, "revision": ${canonicalJson(e.revision)}}`
  );
}

/** The hash of an event following `previous` (the previous event's hash as hex; '' for the first). */
export function chainHash(previous: string, e: ChainedFields): string {
  const h = createHash('sha256');
  if (previous) h.update(previous, 'hex');
  return h.update(canonicalEvent(e), 'utf8').digest('hex');
}

export function canonicalJson(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? plainNumber(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('a BigInt has no JSON form');
    case 'object':
      break;
    default:
      // undefined, functions and symbols: JSON.stringify writes null in arrays (and at the top).
      return 'null';
  }
  if (v === null) return 'null';
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((v as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ', ' : '') + canonicalJson(v[i]);
    return `${out}]`;
  }
  const obj = v as Record<string, unknown>;
  const { keys, quoted } = shapeOf(obj);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const value = obj[keys[i]!];
    const t = typeof value;
    if (t === 'undefined' || t === 'function' || t === 'symbol') continue;
    out += (out.length > 1 ? ', ' : '') + quoted[i]! + canonicalJson(value);
  }
  return `${out}}`;
}

/**
 * The sorted keys of objects of one shape (the same own keys in the same order), with their
 * JSON and the colon after: events of a type share a few shapes, so sorting is done once each.
 */
const shapes = new Map<string, { keys: string[]; quoted: string[] }>();
const SHAPES = 4096;

function shapeOf(obj: object): { keys: string[]; quoted: string[] } {
  const own = Object.keys(obj);
  const id = JSON.stringify(own);
  let shape = shapes.get(id);
  if (!shape) {
    const keys = own.sort(compareKeys);
    shape = { keys, quoted: keys.map((k) => `${JSON.stringify(k)}: `) };
    if (shapes.size >= SHAPES) shapes.clear();
    shapes.set(id, shape);
  }
  return shape;
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
