import fc from 'fast-check';
import { ADMIN, AUDITOR, W } from './http.ts';
import { DATES, HISTORIC_CODES, NUMBERS, VALID_DATES, encodeBody, jsonValue, mutation, readable, textValue } from './reliability-fuzz.ts';

/**
 * Requests generated from what the service says of itself: every operation of the OpenAPI
 * document it serves, with values drawn from each parameter's schema and then made hostile, and
 * every route of the panel from the router's table. New operations and routes are covered
 * without touching this file.
 */

type Json = Record<string, any>;
export type Envelope = 'vacation' | 'lookup' | 'contract';

export interface Operation {
  method: 'GET' | 'POST';
  /** As the document writes it, `{name}` for a path parameter. */
  path: string;
  envelope: Envelope | null;
  params: { name: string; in: 'query' | 'path' | 'body'; schema: Json }[];
  /** Whether it takes an Idempotency-Key (it documents a 409). */
  idempotent: boolean;
}

const refName = (node: Json | undefined): string | undefined => node?.$ref?.split('/').at(-1);

/** The operations of an OpenAPI 3.0 document, with their parameters and error envelope. */
export function operationsOf(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const errorRef = refName(op.responses?.['400']?.content?.['application/json']?.schema);
      const forbiddenRef = refName(op.responses?.['403']?.content?.['application/json']?.schema);
      const envelope: Envelope | null =
        forbiddenRef === 'ContractForbidden' ? 'contract' : errorRef === 'VacationError' ? 'vacation' : errorRef ? 'lookup' : null;
      const params: Operation['params'] = (op.parameters ?? []).map((p: Json) => ({ name: p.name, in: p.in, schema: p.schema ?? {} }));
      const bodyRef = refName(op.requestBody?.content?.['application/json']?.schema);
      if (bodyRef) {
        for (const [name, schema] of Object.entries<Json>(doc.components.schemas[bodyRef].properties ?? {})) {
          params.push({ name, in: 'body', schema });
        }
      }
      out.push({ method: method.toUpperCase() as 'GET' | 'POST', path, envelope, params, idempotent: '409' in (op.responses ?? {}) });
    }
  }
  return out;
}

/**
 * Every route of the panel and the methods it answers, from fastify's `printRoutes({ commonPrefix: false })`:
 * a tree whose lines each add a segment to the path of the line they hang from.
 */
export function panelRoutesOf(printed: string): { method: 'GET' | 'POST'; path: string }[] {
  const stack: string[] = [];
  const out: { method: 'GET' | 'POST'; path: string }[] = [];
  for (const line of printed.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack.push(path);
    if (!/^\/panel(\/|$)/i.test(path) || m[3] === undefined) continue;
    for (const method of m[3].split(', ')) if (method === 'GET' || method === 'POST') out.push({ method, path });
  }
  return out;
}

/** Dates and months PostgreSQL or JavaScript cannot hold, or that lie far from payroll's years. */
export const FAR_DATES = [
  '0000-01-01',
  '0001-01-01',
  '1899-12-31',
  '3000-01-01',
  '9999-12-31',
  '275760-09-13',
  '+275760-09-13',
  '-000001-01-01',
];
export const FAR_MONTHS = ['0000-01', '0000-12', '1899-12', '3000-01', '9999-12', '275760-09', '2026-00', '2026-13'];
const HUGE = ['99999999999999999999', '-99999999999999999999', '9223372036854775808', '-1', '-2147483649', '1e308', '-0', '4294967296'];

/** A long text: the length of a field no form sends, short of the body limit. */
const longText = fc.integer({ min: 300, max: 6000 }).chain((n) => fc.constantFrom('a', '9', 'ñ', '%', '[').map((c) => c.repeat(n)));

/** A value a parameter's schema would take: its enum, its example, a real date or month, a real person. */
function plausible(name: string, schema: Json): fc.Arbitrary<string> {
  const choices: string[] = [];
  if (Array.isArray(schema.enum)) choices.push(...schema.enum.filter((v: unknown): v is string => typeof v === 'string'));
  if (typeof schema.example === 'string') choices.push(schema.example);
  if (schema.format === 'date') choices.push(...VALID_DATES);
  if (/periodo|mes$/i.test(name)) choices.push('2026-11', '2026-12', '2027-01');
  if (/documento/i.test(name)) choices.push(...Object.values(W));
  if (/email/i.test(name)) choices.push(ADMIN, AUDITOR);
  if (/codigo/i.test(name)) choices.push(...HISTORIC_CODES);
  if (/limite|dias/i.test(name)) choices.push('1', '6', '15', '100');
  return choices.length ? fc.constantFrom(...choices) : textValue;
}

/** A hostile value for any parameter: far dates and months, huge and negative numbers, long or strange text. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...FAR_DATES, ...FAR_MONTHS, ...DATES),
  fc.constantFrom(...HUGE, ...NUMBERS),
  longText,
  textValue,
);

/** A value for a parameter: mostly plausible, so that the others' checks are passed and the hostile one is reached. */
const valueFor = (name: string, schema: Json) =>
  fc.oneof({ weight: 6, arbitrary: plausible(name, schema) }, { weight: 1, arbitrary: hostileValue });

export type BodyEncoding = 'urlencoded' | 'multipart' | 'json' | 'json-deep';

export interface GeneratedRequest {
  /** Fields, duplicates allowed; values JSON for a json body. */
  pairs: [string, unknown][];
  /** What replaces each path parameter. */
  segments: Record<string, string>;
  encoding: BodyEncoding;
  /** Levels of the deep body, for json-deep. */
  depth: number;
  idempotencyKey: string | null;
}

/** A JSON text nested `depth` levels, as lists or objects, its innermost value a field of the interface. */
export function deepJson(depth: number, kind: 'array' | 'object', inner: [string, unknown][]): string {
  const core = JSON.stringify(Object.fromEntries(inner));
  return kind === 'array' ? '['.repeat(depth) + core + ']'.repeat(depth) : '{"a":'.repeat(depth) + core + '}'.repeat(depth);
}

/** Requests for fields named `names` (schemas by name where known), their values drawn as `valueFor` does. */
export function requestFor(
  fields: { name: string; schema: Json }[],
  pathNames: string[],
  opts: { segment: fc.Arbitrary<string>; value?: fc.Arbitrary<string> },
): fc.Arbitrary<GeneratedRequest> {
  const names = fields.map((f) => f.name);
  const value = (f: { name: string; schema: Json }) =>
    opts.value ? fc.oneof(plausible(f.name, f.schema), opts.value) : valueFor(f.name, f.schema);
  const base = fc.tuple(
    ...fields.map((f) =>
      fc.option(
        value(f).map((v) => [f.name, v] as [string, unknown]),
        { freq: 12, nil: null },
      ),
    ),
  );
  const jsonWrong = fc.tuple(fc.nat(), jsonValue).map(
    ([i, v]) =>
      (pairs: [string, unknown][]): [string, unknown][] =>
        pairs.map((p, j) => (j === i % Math.max(pairs.length, 1) ? [p[0], v] : p)),
  );
  return fc
    .record({
      pairs: fc
        .tuple(base, fc.array(names.length ? fc.oneof(mutation(names), jsonWrong) : jsonWrong, { maxLength: 3 }))
        .map(([b, ops]) => ops.reduce((pairs, op) => op(pairs), b.filter((p): p is [string, string] => p !== null) as [string, unknown][])),
      segments: fc.record(Object.fromEntries(pathNames.map((n) => [n, opts.segment]))),
      encoding: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom<BodyEncoding>('urlencoded', 'multipart', 'json') },
        { weight: 1, arbitrary: fc.constant<BodyEncoding>('json-deep') },
      ),
      depth: fc.constantFrom(33, 200, 5_000, 30_000),
      idempotencyKey: fc.option(fc.noBias(fc.uuid()), { freq: 2 }),
    })
    .map(readable);
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** The query string of fields (GET), each value as text. */
export function queryString(pairs: [string, unknown][]): string {
  const q = new URLSearchParams();
  for (const [k, v] of pairs) q.append(k, asText(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The body of a POST and its content type (none for multipart: fetch writes its boundary). */
export function bodyOf(r: GeneratedRequest, n: number): { body: string | FormData; contentType?: string } {
  if (r.encoding === 'json-deep') return { body: deepJson(r.depth, n % 2 ? 'array' : 'object', r.pairs), contentType: 'application/json' };
  return encodeBody({ encoding: r.encoding, pairs: r.pairs }) as { body: string | FormData; contentType?: string };
}
