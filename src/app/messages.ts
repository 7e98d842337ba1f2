import { MAX_BODY_DEPTH } from './body-depth.ts';

/**
 * The interface's fixed messages, in the words existing callers already parse. The API's
 * envelopes and the panel's pages both take their words from here.
 */
export const MESSAGES = {
  internal: 'Error interno del servidor.',
  unauthorized: 'API key inválida o ausente',
  forbidden: 'Acceso denegado',
  /** An area head's refusal, for a worker or record outside their subgerencias. */
  notInUnits: 'Ese trabajador no pertenece a las subgerencias a su cargo.',
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
  bodyTooDeep: `El cuerpo anida listas u objetos a más de ${MAX_BODY_DEPTH} niveles`,
  tooManyRequests: 'Demasiadas solicitudes. Intente de nuevo más tarde.',
  routeNotFound: 'Ruta no encontrada',
  uriTooLong: 'La ruta solicitada es demasiado larga',
  badUrl: 'La ruta solicitada no es válida',
  headersTooLarge: 'Los encabezados o la URL de la solicitud son demasiado grandes',
  badRequest: 'Solicitud HTTP no válida',
  requestTimeout: 'La solicitud no llegó completa a tiempo',
} as const;

/** A parameter sent more than once (in any case), as a list or object, or with a NUL character: named in the refusal. */
export const repeatedField = (name: string) => `El campo ${name} viene repetido, no es un valor simple o tiene caracteres no permitidos`;
