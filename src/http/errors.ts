import { MESSAGES } from '../app/messages.ts';
import { BODY_TOO_DEEP } from '../app/body-depth.ts';

const DB_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  // The server's statement_timeout and lock_timeout (DATABASE_STATEMENT_TIMEOUT_MS,
  // DATABASE_LOCK_TIMEOUT_MS): the database was too slow or held a lock, so try again.
  '57014',
  '55P03',
]);

/** What pg and the KurrentDB client say when the server cannot be reached. */
const UNAVAILABLE_MESSAGES = new RegExp(
  [
    'Connection terminated',
    'timeout exceeded when trying to connect',
    'connect ECONNREFUSED',
    'Client has encountered a connection error',
    'UNAVAILABLE',
    'DEADLINE_EXCEEDED',
    'Deadline exceeded',
  ].join('|'),
  'i',
);

/**
 * The KurrentDB client's error types (its errors' `type`) for a server that did not answer in
 * time or could not be reached; the store's own names for a stream too contended for now
 * (ContendedStreamError) and for a cluster with no leader to take a call (NoLeaderError).
 */
const UNAVAILABLE_TYPES = new Set(['unavailable', 'deadline-exceeded', 'not-leader']);

/** Whether an error means a dependency (database, event store) is unreachable rather than a bug. */
export function isUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string; cause?: unknown; type?: unknown; name?: unknown };
  if (e?.code && DB_DOWN_CODES.has(e.code)) return true;
  if (typeof e?.type === 'string' && UNAVAILABLE_TYPES.has(e.type)) return true;
  if (e?.name === 'ContendedStreamError' || e?.name === 'NoLeaderError') return true;
  if (UNAVAILABLE_MESSAGES.test(e?.message ?? '')) return true;
  return e?.cause ? isUnavailable(e.cause) : false;
}

/** Status and caller-facing message for an error thrown outside a handler's own answers. */
export function classifyError(err: unknown): { status: number; message: string } {
  const e = err as { code?: string; statusCode?: number; name?: string };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return { status: 413, message: MESSAGES.tooLarge };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: MESSAGES.unsupportedType };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
    case 'FST_PROTO_VIOLATION':
    case 'FST_ERR_BAD_URL':
      return { status: 400, message: MESSAGES.badBody };
    case BODY_TOO_DEEP:
      return { status: 400, message: MESSAGES.bodyTooDeep };
  }
  // busboy's complaints about a malformed multipart body come without a code.
  if (/^Multipart: |^Unexpected end of form|^Malformed part header/.test((err as Error)?.message ?? '')) {
    return { status: 400, message: MESSAGES.badBody };
  }
  if (e?.statusCode === 429) return { status: 429, message: MESSAGES.tooManyRequests };
  if (isUnavailable(err)) return { status: 503, message: MESSAGES.unavailable };
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 413) return { status: 413, message: MESSAGES.tooLarge };
    if (e.statusCode === 415) return { status: 415, message: MESSAGES.unsupportedType };
    return { status: 400, message: MESSAGES.badBody };
  }
  return { status: 500, message: MESSAGES.internal };
}

/**
 * The `errors.detalle` of a vacation endpoint's answer to a failure raised outside its handler:
 * what the caller can do about it. A 500 names the request, whose detail is in the log only.
 */
export function errorDetail(status: number, ctx: { requestId: string; bodyLimitBytes: number; rateLimitPerMinute: number }): string {
  switch (status) {
    case 400:
      return 'El cuerpo debe ser un formulario (urlencoded o multipart, solo campos) o un JSON bien formado';
    case 413:
      return `El cuerpo supera el máximo de ${ctx.bodyLimitBytes} bytes`;
    case 415:
      return 'Envíe application/x-www-form-urlencoded, multipart/form-data o application/json';
    case 429:
      return `Se superó el límite de ${ctx.rateLimitPerMinute} solicitudes por minuto de la API key`;
    case 503:
      return 'La base de datos o el almacén de eventos no responde';
    default:
      return `Error registrado con el identificador de solicitud ${ctx.requestId}`;
  }
}
