import fc from 'fast-check';
import { ADMIN, AUDITOR, EMPLOYEE, W } from './http.ts';

/**
 * Arbitraries of hostile HTTP requests for the endpoints of the service: field names and
 * values, encodings, content types, methods and keys a careless or malicious caller may send.
 */

export type Envelope = 'vacation' | 'lookup' | 'contract';

export interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  /** Path without the /api prefix; `:code` is replaced by a generated segment. */
  path: string;
  envelope: Envelope;
  fields: string[];
  /** Events a success may append: writes any, audited lookups exactly one audit event. */
  appends: 'none' | 'writes' | 'audit';
  /** A request this endpoint would accept or judge on its merits, before mutation. */
  base: (g: BaseChoice) => [string, string][];
}

export interface BaseChoice {
  doc: string;
  date: string;
  days: string;
  code: string;
}

const CREATE_FIELDS = [
  'documentoAsociado',
  'vacFechaInicio',
  'vacDiasVacaciones',
  'emailUserResponsable',
  'vacPagado',
  'vacLaboraSabado',
  'vacCompensado',
  'vacSeguridadEnNomina',
];
const createBase = (g: BaseChoice): [string, string][] => [
  ['documentoAsociado', g.doc],
  ['vacFechaInicio', g.date],
  ['vacDiasVacaciones', g.days],
  ['emailUserResponsable', ADMIN],
];
const codeBase = (g: BaseChoice): [string, string][] => [
  ['codigoPila', g.code],
  ['emailUserResponsable', ADMIN],
];
const lookupBase = (g: BaseChoice): [string, string][] => [
  ['numeroDocumento', g.doc],
  ['emailResponsable', ADMIN],
];

export const ENDPOINTS: Endpoint[] = [
  {
    name: 'calculate',
    method: 'POST',
    path: '/vacaciones/calculate',
    envelope: 'vacation',
    fields: CREATE_FIELDS,
    appends: 'none',
    base: createBase,
  },
  {
    name: 'add',
    method: 'POST',
    path: '/vacaciones/add',
    envelope: 'vacation',
    fields: CREATE_FIELDS,
    appends: 'writes',
    base: createBase,
  },
  {
    name: 'edit',
    method: 'POST',
    path: '/vacaciones/edit',
    envelope: 'vacation',
    fields: ['codigoPila', ...CREATE_FIELDS, 'vaclaboraSabado'],
    appends: 'writes',
    base: (g) => [['codigoPila', g.code], ...createBase(g)],
  },
  {
    name: 'delete',
    method: 'POST',
    path: '/vacaciones/delete',
    envelope: 'vacation',
    fields: ['codigoPila', 'emailUserResponsable'],
    appends: 'writes',
    base: codeBase,
  },
  {
    name: 'approve',
    method: 'POST',
    path: '/vacaciones/approve',
    envelope: 'vacation',
    fields: ['codigoPila', 'emailUserResponsable'],
    appends: 'writes',
    base: codeBase,
  },
  {
    name: 'consultdatavacations',
    method: 'GET',
    path: '/vacaciones/consultdatavacations',
    envelope: 'lookup',
    fields: ['numeroDocumento', 'emailResponsable', 'tipoDocumento'],
    appends: 'audit',
    base: lookupBase,
  },
  {
    name: 'verificarContratoActivo',
    method: 'GET',
    path: '/contratos/verificarContratoActivo',
    envelope: 'contract',
    fields: ['numeroDocumento', 'emailResponsable', 'tipoDocumento'],
    appends: 'audit',
    base: lookupBase,
  },
  {
    name: 'vacaciones (list)',
    method: 'GET',
    path: '/vacaciones',
    envelope: 'lookup',
    fields: ['numeroDocumento', 'emailResponsable', 'incluirEliminadas'],
    appends: 'none',
    base: lookupBase,
  },
  {
    name: 'registro',
    method: 'GET',
    path: '/vacaciones/registro/:code',
    envelope: 'lookup',
    fields: ['emailResponsable'],
    appends: 'none',
    base: () => [['emailResponsable', ADMIN]],
  },
  {
    name: 'auditoria',
    method: 'GET',
    path: '/vacaciones/auditoria',
    envelope: 'lookup',
    fields: ['numeroDocumento', 'codigoPila', 'emailResponsable', 'limite'],
    appends: 'none',
    base: (g) => [...lookupBase(g), ['codigoPila', g.code]],
  },
  {
    name: 'periodos',
    method: 'GET',
    path: '/vacaciones/periodos',
    envelope: 'vacation',
    fields: ['numeroDocumento', 'emailResponsable'],
    appends: 'none',
    base: lookupBase,
  },
  {
    name: 'liquidacion',
    method: 'GET',
    path: '/vacaciones/liquidacion',
    envelope: 'vacation',
    fields: ['numeroDocumento', 'fechaRetiro', 'emailResponsable'],
    appends: 'none',
    base: (g) => [...lookupBase(g), ['fechaRetiro', g.date]],
  },
  {
    name: 'libro',
    method: 'GET',
    path: '/vacaciones/libro',
    envelope: 'vacation',
    fields: ['emailResponsable', 'numeroDocumento', 'subgerenciaId', 'fechaDesde', 'fechaHasta', 'fechaCorte', 'formato'],
    appends: 'none',
    base: (g) => [...lookupBase(g), ['fechaCorte', g.date]],
  },
  {
    name: 'interrupt',
    method: 'POST',
    path: '/vacaciones/interrupt',
    envelope: 'vacation',
    fields: ['codigoPila', 'fechaInterrupcion', 'motivo', 'emailUserResponsable'],
    appends: 'writes',
    base: (g) => [...codeBase(g), ['fechaInterrupcion', g.date], ['motivo', 'otro']],
  },
];

export const HISTORIC_CODES = ['VAC_1750000000000_a1b2c3d4_deadbeef', 'VAC_1760000000000_11223344_0badf00d'];

const HOSTILE = [
  "'; DROP TABLE events; --",
  "' OR '1'='1",
  '1; SELECT pg_sleep(0); --',
  "admin@empresa.co' --",
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '../../../../etc/passwd',
  '\u0000',
  'a\u0000b',
  '\r\nX-Inyectada: 1',
  '%00',
  '%',
  '%E0%A4%A',
  '😀👩‍👩‍👧',
  '\u202egnp.exe',
  '\ufeff',
  'ñandú',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '[object Object]',
  ' ',
  '\t\n',
];
export const NUMBERS = [
  '0',
  '-1',
  '1',
  '6',
  '15',
  '360',
  '361',
  '1e3',
  '1.5',
  'NaN',
  'Infinity',
  '-0',
  '0x10',
  '99999999999999999999999',
  '١٥',
  ' 15 ',
  '+15',
];
export const VALID_DATES = ['2026-01-05', '2026-02-02', '2026-03-16', '2026-12-01', '2027-01-12'];
export const DATES = [
  '2026-01-05',
  '2026-12-01',
  '2026-02-30',
  '2026-13-01',
  '0000-01-01',
  '9999-12-31',
  '2026-1-5',
  '2026-01-05T00:00:00Z',
  '+275760-09-13',
  '2026/01/05',
];
const REAL = [...Object.values(W), ADMIN, AUDITOR, EMPLOYEE, 'ADMIN@EMPRESA.CO', 'nadie@empresa.co', ...HISTORIC_CODES, 'CC', 'TI', 'cc'];

/** A string value: real ones, hostile ones, random unicode, sometimes big. */
export const textValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...REAL, ...NUMBERS, ...DATES, '') },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 10_000 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 6000 }).map((n) => 'ñ'.repeat(n)) },
);

/** A JSON value: a text, or what a form cannot carry (numbers, booleans, null, arrays, objects). */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: textValue },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.array(textValue, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const mixedCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((ups) => [...name].map((ch, i) => (ups[i] ? ch.toUpperCase() : ch.toLowerCase())).join(''));

export function fieldName(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.constantFrom(...known).chain(mixedCase) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '__proto__',
        'constructor',
        'prototype',
        'toString',
        'hasOwnProperty',
        'a[b]',
        'a.b',
        'documentoAsociado[]',
        '',
      ),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }) },
  );
}

type Pairs = [string, unknown][];

/** One change to a request's fields: add, replace, repeat, drop or re-case one. */
export function mutation(known: string[]): fc.Arbitrary<(pairs: Pairs) => Pairs> {
  const name = fieldName(known);
  const at = (pairs: Pairs, i: number) => i % Math.max(pairs.length, 1);
  return fc.oneof(
    fc.tuple(name, jsonValue).map(([n, v]) => (pairs: Pairs): Pairs => [...pairs, [n, v]]),
    fc.tuple(fc.nat(), jsonValue).map(
      ([i, v]) =>
        (pairs: Pairs): Pairs =>
          pairs.map((p, j) => (j === at(pairs, i) ? [p[0], v] : p)),
    ),
    fc.tuple(fc.nat(), jsonValue).map(
      ([i, v]) =>
        (pairs: Pairs): Pairs =>
          pairs.length ? [...pairs, [pairs[at(pairs, i)]![0], v]] : pairs,
    ),
    fc.nat().map(
      (i) =>
        (pairs: Pairs): Pairs =>
          pairs.filter((_, j) => j !== at(pairs, i)),
    ),
    fc.tuple(fc.nat(), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 })).map(
      ([i, ups]) =>
        (pairs: Pairs): Pairs =>
          pairs.map((p, j) =>
            j === at(pairs, i) ? [[...p[0]].map((ch, k) => (ups[k % 30] ? ch.toUpperCase() : ch.toLowerCase())).join(''), p[1]] : p,
          ),
    ),
  );
}

export type Encoding =
  | 'urlencoded'
  | 'urlencoded-latin1'
  | 'multipart'
  | 'multipart-no-boundary'
  | 'json'
  | 'json-not-object'
  | 'json-invalid'
  | 'text/plain'
  | 'application/xml'
  | 'no-content-type'
  | 'no-body';

export type KeyChoice = 'full' | 'none' | 'wrong' | 'malformed' | 'solo-contratos' | 'solo-vacaciones';

export interface FuzzRequest {
  method: string;
  prefix: '' | '/api';
  upperPath: boolean;
  encoding: Encoding;
  /** Body fields (or query fields for GET), duplicates allowed, values JSON when the encoding is. */
  pairs: [string, unknown][];
  /** Query fields on top of the body, for writes. */
  extraQuery: [string, string][];
  code: string;
  key: KeyChoice;
  idempotencyKey: string | null;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const ENCODINGS: Encoding[] = [
  'urlencoded',
  'urlencoded-latin1',
  'multipart',
  'multipart-no-boundary',
  'json',
  'json-not-object',
  'json-invalid',
  'text/plain',
  'application/xml',
  'no-content-type',
  'no-body',
];

const asText = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? 'undefined'));

/** Longest query string generated: beyond some 16 KB Node refuses the request head before the service sees it. */
export const MAX_QUERY_CHARS = 12_000;

/** The query string of `r` on endpoint `e` (its fields for GET endpoints, and the extra fields). */
export function queryOf(e: Endpoint, r: Pick<FuzzRequest, 'pairs' | 'extraQuery'>): string {
  const q = new URLSearchParams();
  if (e.method === 'GET') for (const [k, v] of r.pairs) q.append(k, asText(v));
  for (const [k, v] of r.extraQuery) q.append(k, v);
  return q.toString();
}

const abbreviate = (v: unknown): unknown =>
  typeof v === 'string' && v.length > 60
    ? `${v.slice(0, 20)}…(${v.length} chars)`
    : Array.isArray(v)
      ? v.map(abbreviate)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, abbreviate(x)]))
        : v;

/** Counterexamples print with long values cut short, so that a failure stays readable. */
export function readable<T extends object>(r: T): T {
  Object.defineProperty(r, fc.toStringMethod, { value: () => JSON.stringify(abbreviate({ ...r })), enumerable: false });
  return r;
}

export function fuzzRequest(e: Endpoint): fc.Arbitrary<FuzzRequest> {
  // Mostly a request the endpoint would judge on its merits, so that mutations reach past validation.
  const base = fc
    .record({
      doc: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...Object.values(W)) },
        { weight: 1, arbitrary: fc.constantFrom('9100000000', '0', '') },
      ),
      date: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...VALID_DATES) }, { weight: 1, arbitrary: fc.constantFrom(...DATES) }),
      days: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('1', '6', '10', '15') },
        { weight: 1, arbitrary: fc.constantFrom(...NUMBERS) },
      ),
      code: fc.constantFrom(...HISTORIC_CODES, 'VAC_1700000000000_00000000_00000000', "VAC_1'; DROP TABLE events; --"),
    })
    .map(e.base);
  const name = fieldName(e.fields);
  return fc
    .record({
      method: fc.oneof({ weight: 6, arbitrary: fc.constant(e.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      prefix: fc.constantFrom('' as const, '/api' as const),
      upperPath: fc.boolean(),
      encoding: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom<Encoding>('urlencoded', 'multipart', 'json') },
        { weight: 3, arbitrary: fc.constantFrom(...ENCODINGS) },
      ),
      pairs: fc
        .tuple(fc.option(base, { freq: 5, nil: [] as [string, string][] }), fc.array(mutation(e.fields), { maxLength: 4 }))
        .map(([b, ops]) => ops.reduce<[string, unknown][]>((pairs, op) => op(pairs), [...b])),
      extraQuery: fc.array(fc.tuple(name, textValue), { maxLength: 2 }),
      // Up to the router's 100-character limit on a path parameter; longer ones have a test of their own.
      code: fc.oneof(
        fc.constantFrom(...HISTORIC_CODES),
        textValue.filter((t) => encodeURIComponent(t).length <= 100),
        fc.integer({ min: 80, max: 96 }).map((n) => `VAC_${'9'.repeat(n)}`),
      ),
      key: fc.oneof(
        { weight: 14, arbitrary: fc.constant<KeyChoice>('full') },
        { weight: 1, arbitrary: fc.constantFrom<KeyChoice>('none', 'wrong', 'malformed', 'solo-contratos', 'solo-vacaciones') },
      ),
      idempotencyKey: fc.option(
        fc.oneof({ weight: 1, arbitrary: fc.constantFrom('fuzz-1', ' ', 'x'.repeat(201)) }, { weight: 6, arbitrary: fc.noBias(fc.uuid()) }),
        { freq: 3 },
      ),
    })
    .filter((r) => queryOf(e, r).length <= MAX_QUERY_CHARS)
    .map(readable);
}

function urlencoded(pairs: [string, unknown][]): string {
  const p = new URLSearchParams();
  for (const [k, v] of pairs) p.append(k, asText(v));
  return p.toString();
}

/** The body of `r` and its content type (undefined: none sent). */
export function encodeBody(r: Pick<FuzzRequest, 'encoding' | 'pairs'>): {
  body: string | Uint8Array | FormData | undefined;
  contentType?: string;
} {
  const enc = new TextEncoder();
  switch (r.encoding) {
    case 'urlencoded':
      return { body: urlencoded(r.pairs), contentType: 'application/x-www-form-urlencoded' };
    case 'urlencoded-latin1':
      return { body: enc.encode(urlencoded(r.pairs)), contentType: 'application/x-www-form-urlencoded; charset=ISO-8859-1' };
    case 'multipart': {
      const fd = new FormData();
      for (const [k, v] of r.pairs) fd.append(k, asText(v));
      return { body: fd };
    }
    case 'multipart-no-boundary':
      return {
        body: enc.encode(`--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n`),
        contentType: 'multipart/form-data',
      };
    case 'json':
      // Written by hand so that a repeated name stays repeated in the text.
      return {
        body: `{${r.pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`,
        contentType: 'application/json',
      };
    case 'json-not-object':
      return {
        body: JSON.stringify(r.pairs.length % 2 === 0 ? r.pairs : (r.pairs.map(([, v]) => v)[0] ?? null)),
        contentType: 'application/json',
      };
    case 'json-invalid':
      return {
        body: `{${r.pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}`,
        contentType: 'application/json',
      };
    case 'text/plain':
      return { body: urlencoded(r.pairs), contentType: 'text/plain' };
    case 'application/xml':
      return {
        body: `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>${r.pairs.map(([k]) => `<f>${k}</f>`).join('')}&x;</r>`,
        contentType: 'application/xml',
      };
    case 'no-content-type':
      return { body: enc.encode(urlencoded(r.pairs)) };
    case 'no-body':
      return { body: undefined };
  }
}

export function bodyLength(b: ReturnType<typeof encodeBody>['body']): number {
  if (b === undefined) return 0;
  if (typeof b === 'string') return Buffer.byteLength(b);
  if (b instanceof Uint8Array) return b.byteLength;
  let n = 0;
  for (const [k, v] of b.entries()) n += Buffer.byteLength(k) + Buffer.byteLength(String(v)) + 100;
  return n;
}
