import type { FastifyReply } from 'fastify';

/**
 * The three response envelopes of the interface. Existing callers parse these exactly, so
 * every error body in the service is built here.
 */
export type VacationErrors = Record<string, string> | string[];

export const MESSAGES = {
  internal: 'Error interno del servidor.',
  unauthorized: 'API key inválida o ausente',
  forbidden: 'Acceso denegado',
  contractForbidden: 'Acceso denegado: no tiene los permisos necesarios para verificar contratos.',
  usePost: 'Método no permitido. Use POST',
  useGet: 'Método no permitido. Use GET',
  missingData: 'Datos requeridos faltantes',
  emailRequired: 'Email del usuario responsable es requerido',
  userNotFound: 'Usuario responsable no encontrado',
  workerNotFound: 'Trabajador no encontrado.',
  adminNotFound: 'Usuario administrador no encontrado para el correo proporcionado.',
  recordNotFound: 'Registro de vacaciones no encontrado',
  inconsistent: 'Validación fallida: datos inconsistentes',
  cannotProcess: 'No se pueden procesar las vacaciones',
  cannotEdit: 'No se puede editar. Validación de datos falló',
  cannotInterrupt: 'No se pueden interrumpir las vacaciones',
  editApproved: 'No se puede editar. Las vacaciones ya están aprobadas',
  deleteApproved: 'No se puede eliminar. Las vacaciones ya están aprobadas',
  alreadyApproved: 'Las vacaciones ya están aprobadas',
  deleteFailed: 'Error al ejecutar la eliminación',
  documentRequired: 'El número de documento es obligatorio.',
  emailResponsableRequired: 'El correo del responsable es obligatorio.',
  busy: 'El servicio está ocupado con solicitudes sobre los mismos datos; intente de nuevo.',
  unavailable: 'Servicio no disponible temporalmente. Intente de nuevo en unos segundos.',
  tooLarge: 'La solicitud supera el tamaño máximo permitido',
  unsupportedType: 'Tipo de contenido no soportado. Use formulario (urlencoded o multipart) o JSON',
  badBody: 'El cuerpo de la solicitud no se pudo leer',
  tooManyRequests: 'Demasiadas solicitudes. Intente de nuevo más tarde.',
  routeNotFound: 'Ruta no encontrada',
  uriTooLong: 'La ruta solicitada es demasiado larga',
  badUrl: 'La ruta solicitada no es válida',
  headersTooLarge: 'Los encabezados o la URL de la solicitud son demasiado grandes',
  badRequest: 'Solicitud HTTP no válida',
} as const;

/** `{success: false, statusCode, message, errors}` of calculate, add, edit, delete, approve. */
export function vacationError(reply: FastifyReply, status: number, message: string, errors?: VacationErrors) {
  const body: Record<string, unknown> = { success: false, statusCode: status, message };
  if (errors !== undefined) body.errors = errors;
  return reply.code(status).send(body);
}

/** `{success: false, statusCode, message}` of the lookup and contract endpoints. */
export function lookupError(reply: FastifyReply, status: number, message: string, opts: { omitStatusCode?: boolean } = {}) {
  return reply.code(status).send(opts.omitStatusCode ? { success: false, message } : { success: false, statusCode: status, message });
}

/** The contract check's own 403 body. */
export function contractForbidden(reply: FastifyReply) {
  return reply.code(403).send({ success: false, status: 403, error: { message: MESSAGES.contractForbidden } });
}

export function vacationSuccess(reply: FastifyReply, status: number, message: string, data: unknown) {
  return reply.code(status).send({ success: true, statusCode: status, message, data });
}

/** Which envelope family a route answers in; set per route so shared hooks pick the right one. */
export type EnvelopeKind = 'vacation' | 'lookup' | 'contract';

/**
 * An error body in the route's family, for failures raised before or around the handler. The
 * vacation family carries `errors.detalle` when one is given (every failure but the 405).
 */
export function errorFor(kind: EnvelopeKind, reply: FastifyReply, status: number, message: string, detalle?: string) {
  if (kind === 'vacation') return vacationError(reply, status, message, detalle === undefined ? undefined : { detalle });
  if (kind === 'contract' && (status === 400 || status === 500)) return lookupError(reply, status, message, { omitStatusCode: true });
  return lookupError(reply, status, message);
}

/**
 * 403 `Acceso denegado` in the route's family: the contract check's own body, the vacation
 * envelope with `errors.apiKey` saying what the key may not do, the lookup envelope.
 */
export function forbidden(kind: EnvelopeKind, reply: FastifyReply, detail: string) {
  if (kind === 'contract') return contractForbidden(reply);
  if (kind === 'vacation') return vacationError(reply, 403, MESSAGES.forbidden, { apiKey: detail });
  return lookupError(reply, 403, MESSAGES.forbidden);
}
