import { expect } from 'vitest';

export type Json = any;
export type Fields = Record<string, string>;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: Json;
}

export interface CallOptions {
  method?: string;
  /** A key secret sent as `X-Api-Key: Bearer <key>`; null sends no key header. */
  key?: string | null;
  /** The X-Api-Key header exactly as given (for malformed values). */
  rawKeyHeader?: string;
  query?: Fields;
  form?: Fields;
  multipart?: FormData | Fields;
  json?: unknown;
  /** A body sent as is, with its content type. */
  raw?: { body: string | Uint8Array; contentType?: string };
  headers?: Record<string, string>;
}

export const ADMIN = 'admin@empresa.co';
export const AUDITOR = 'auditor@empresa.co';
export const EMPLOYEE = 'empleado@empresa.co';
export const CODE_RE = /^VAC_\d+_[0-9a-f]{8}_[0-9a-f]{8}$/;
export const TIMESTAMP_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export const W = {
  maria: '1020307007', // 1001, SG-OPS, salary 2,847,000, risk 1
  juan: '1020307014', // 1002, SG-OPS, risk 4 (30 days a year)
  luisa: '1020307021', // 1003, SG-OPS, contract from 2025-11-01
  andres: '1020307028', // 1004, settled contract only
  catalina: '1020307035', // 1005, no contracts
  jorge: '1020307042', // 1006, company contract without vacation rules
  paula: '1020307049', // 1007, contract without end date
  santiago: '1020307056', // 1008, no risk level
  diana: '1020307063', // 1009, no company contract
  camilo: '1020307070', // 1010, main plus additional contract
} as const;

export async function call(base: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const headers = new Headers(o.headers);
  if (o.rawKeyHeader !== undefined) headers.set('x-api-key', o.rawKeyHeader);
  else if (o.key) headers.set('x-api-key', `Bearer ${o.key}`);
  let body: FormData | URLSearchParams | string | Uint8Array | undefined;
  if (o.form) body = new URLSearchParams(o.form);
  else if (o.multipart) {
    if (o.multipart instanceof FormData) body = o.multipart;
    else {
      const fd = new FormData();
      for (const [k, v] of Object.entries(o.multipart)) fd.append(k, v);
      body = fd;
    }
  } else if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers.set('content-type', 'application/json');
  } else if (o.raw) {
    body = o.raw.body;
    if (o.raw.contentType) headers.set('content-type', o.raw.contentType);
  }
  const qs = o.query ? `?${new URLSearchParams(o.query)}` : '';
  const res = await fetch(`${base}${path}${qs}`, { method: o.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** Calls bound to one server and one key. */
export function client(base: string, key: string | null) {
  return {
    call: (path: string, o: CallOptions = {}) => call(base, path, { key, ...o }),
    post: (path: string, form: Fields, o: CallOptions = {}) => call(base, path, { key, form, ...o }),
    get: (path: string, query: Fields = {}, o: CallOptions = {}) => call(base, path, { key, query, ...o }),
  };
}
export type Client = ReturnType<typeof client>;

/** Adds a vacation that must be accepted, for tests that need a live record to act on. */
export async function addVacation(c: Client, form: Fields) {
  const r = await c.post('/api/vacaciones/add', form);
  expect(r.status, r.text).toBe(201);
  return r.body.data as { codigo_pila: string; id: number; vacaciones: Record<string, unknown> };
}

/** The form of a vacation request on worker `doc`, by the administrator. */
export function vacationForm(doc: string, start: string, days: number | string, extra: Fields = {}): Fields {
  return { documentoAsociado: doc, vacFechaInicio: start, vacDiasVacaciones: String(days), emailUserResponsable: ADMIN, ...extra };
}

/** What calculate gives for `vacationForm(W.maria, '2026-01-05', 15)`: 15 business days to 2026-01-26, paid at 2,847,000 / 30 a day. */
export const WORKED_EXAMPLE = {
  vacAsociado: 1001,
  vacFechaInicio: '2026-01-05',
  vacFechaFinal: '2026-01-26',
  vacDiasVacaciones: 15,
  vacDiasCalendario: 22,
  vacSalario: 2847000,
  vacValorTotal: 1423500,
};

/** Asserts the vacation error envelope `{success:false, statusCode, message, errors}` and returns `errors`. */
export function expectVacationError(a: Answer, status: number, message: string): Json {
  expect({ status: a.status, body: a.body }).toMatchObject({ status, body: { success: false, statusCode: status, message } });
  return a.body.errors;
}

/** Asserts an errors object keyed exactly by `fields`, each with a non-empty message. */
export function expectKeyedErrors(errors: Json, fields: string[]): void {
  expect(errors).toBeTypeOf('object');
  expect(Array.isArray(errors)).toBe(false);
  expect(Object.keys(errors).sort()).toEqual([...fields].sort());
  for (const f of fields) expect(errors[f]).toEqual(expect.any(String));
}

/** Asserts an errors array of `n` non-empty strings (any length when n is undefined). */
export function expectErrorList(errors: Json, n?: number): string[] {
  expect(Array.isArray(errors)).toBe(true);
  if (n !== undefined) expect(errors).toHaveLength(n);
  for (const e of errors) expect(e).toEqual(expect.stringMatching(/\S/));
  return errors as string[];
}

/** Messages of the lookup endpoints, which word the same failures differently from the vacation writes. */
export const LOOKUP_MESSAGES = {
  documentRequired: 'El número de documento es obligatorio.',
  emailRequired: 'El correo del responsable es obligatorio.',
  workerNotFound: 'Trabajador no encontrado.',
  adminNotFound: 'Usuario administrador no encontrado para el correo proporcionado.',
};

/** Asserts the lookup error envelope `{success:false, statusCode, message}` exactly. */
export function expectLookupError(a: Answer, status: number, message: string): void {
  expect({ status: a.status, body: a.body }).toEqual({ status, body: { success: false, statusCode: status, message } });
}
