import { z } from 'zod';
import { electronicPayrollOk } from './electronic-payroll-schemas.ts';
import { liabilityMovementOk, liabilityOk } from './liability-schemas.ts';
import { feedOk, noveltiesOk } from './integration-schemas.ts';
import * as R from './response-schemas.ts';
import {
  auditExportQuery,
  auditQuery,
  auditVerifyQuery,
  bookQuery,
  calculateBody,
  codeBody,
  consultQuery,
  contractQuery,
  editBody,
  electronicPayrollQuery,
  liabilityMovementQuery,
  liabilityQuery,
  feedQuery,
  interruptBody,
  listQuery,
  noveltiesQuery,
  periodsQuery,
  recordQuery,
  settlementQuery,
} from '../app/schemas.ts';

type Json = Record<string, unknown>;

/**
 * A nullable enum lists null among its values: OpenAPI 3.0.3 reads `nullable` as widening the
 * type only, so an enum without null would still refuse it.
 */
function nullInEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullInEnums);
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullInEnums(v)])) as Json;
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/** OpenAPI 3.0 schema objects: `nullable` and `enum` rather than JSON Schema's null type and `const`. */
const jsonSchema = (s: z.ZodType): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Json;
  return nullInEnums(rest) as Json;
};

/** Schemas named once under components and referred to wherever they are used. */
class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly names = new Map<z.ZodType, string>();

  ref(name: string, schema: z.ZodType): Json {
    const known = this.names.get(schema);
    if (known !== undefined && known !== name) throw new Error(`schema ${name} is already named ${known}`);
    if (known === undefined) {
      if (name in this.schemas) throw new Error(`two schemas named ${name}`);
      this.names.set(schema, name);
      this.schemas[name] = jsonSchema(schema);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
}

function queryParams(schema: z.ZodObject): Json[] {
  const s = jsonSchema(schema) as { properties: Record<string, Json>; required?: string[] };
  return Object.entries(s.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: (s.required ?? []).includes(name),
    schema,
    description: schema.description,
  }));
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Datos faltantes o inválidos, o un cuerpo que no se pudo leer',
  401: 'API key inválida o ausente',
  403: 'Sin permiso',
  404: 'No encontrado',
  405: 'Método no permitido',
  409: 'Una solicitud con la misma Idempotency-Key sigue en curso',
  413: 'Cuerpo demasiado grande',
  415: 'Tipo de contenido no soportado',
  422: 'Reglas de negocio o Idempotency-Key reutilizada con otros datos',
  429: 'Demasiadas solicitudes',
  500: 'Error interno',
  503: 'Base de datos o almacén de eventos no disponibles, o conflicto persistente',
};

/** Every vacation write answers these, beside its own success. */
const VACATION_ERRORS = [400, 401, 403, 404, 405, 413, 415, 422, 429, 500, 503];
/** The read endpoints' failures, in the lookup envelope. */
const READ_ERRORS = [400, 401, 403, 404, 405, 429, 500, 503];
/** The writes that take an Idempotency-Key add its answers. */
const IDEMPOTENT_ERRORS = [...VACATION_ERRORS, 409];

/**
 * The OpenAPI 3.0 description of the service, built from the request schemas that validate
 * requests and the response schemas the tests hold the answers to.
 */
export function openApiDocument(): Json {
  const c = new Components();
  const json = (name: string, schema: z.ZodType) => ({ 'application/json': { schema: c.ref(name, schema) } });
  const ok = (status: number, description: string, name: string, schema: z.ZodType) => ({
    [String(status)]: { description, content: json(name, schema) },
  });
  const errors = (codes: number[], name = 'VacationError', schema: z.ZodType = R.vacationError) =>
    Object.fromEntries(codes.map((code) => [String(code), { description: ERROR_TEXT[code] ?? 'Error', content: json(name, schema) }]));
  const lookupErrors = (codes: number[]) => errors(codes, 'LookupError', R.lookupError);
  const formBody = (name: string, schema: z.ZodObject): Json => {
    const ref = c.ref(name, schema);
    return {
      required: true,
      content: {
        'application/x-www-form-urlencoded': { schema: ref },
        'multipart/form-data': { schema: ref },
        'application/json': { schema: ref },
      },
    };
  };
  const post = (summary: string, body: [string, z.ZodObject], success: Record<string, Json>, codes: number[]): Json => ({
    post: {
      summary,
      requestBody: formBody(...body),
      responses: { ...success, ...errors(codes) },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
  });
  const get = (summary: string, parameters: Json[], responses: Record<string, Json>): Json => ({
    get: { summary, parameters, responses, security: [{ apiKey: [] }, { bearer: [] }] },
  });
  const create: [string, z.ZodObject] = ['VacationForm', calculateBody];
  const byCode: [string, z.ZodObject] = ['CodeForm', codeBody];

  const paths: Record<string, Json> = {
    '/api/vacaciones/calculate': post(
      'Calcular vacaciones sin guardarlas',
      create,
      ok(200, 'Cálculo', 'Calculation', R.calculateOk),
      VACATION_ERRORS,
    ),
    '/api/vacaciones/add': post('Registrar vacaciones', create, ok(201, 'Registro creado', 'Created', R.addOk), IDEMPOTENT_ERRORS),
    '/api/vacaciones/edit': post(
      'Editar vacaciones (nuevo registro y código PILA)',
      ['EditForm', editBody],
      ok(200, 'Registro reemplazado', 'Edited', R.editOk),
      IDEMPOTENT_ERRORS,
    ),
    '/api/vacaciones/delete': post(
      'Eliminar vacaciones no aprobadas',
      byCode,
      ok(200, 'Registro eliminado', 'Deleted', R.deleteOk),
      IDEMPOTENT_ERRORS,
    ),
    '/api/vacaciones/approve': post('Aprobar vacaciones', byCode, ok(200, 'Registro aprobado', 'Approved', R.approveOk), IDEMPOTENT_ERRORS),
    '/api/vacaciones/interrupt': post(
      'Interrumpir vacaciones aprobadas y disfrutadas en curso (CST art. 188); los días no disfrutados vuelven al saldo',
      ['InterruptForm', interruptBody],
      ok(200, 'Vacaciones interrumpidas', 'Interrupted', R.interruptOk),
      IDEMPOTENT_ERRORS,
    ),
    '/api/vacaciones/consultdatavacations': get('Datos previos a solicitar vacaciones', queryParams(consultQuery), {
      ...ok(200, 'Datos de vacaciones', 'VacationData', R.consultOk),
      ...lookupErrors([400, 401, 403, 404, 405, 422, 429, 500, 503]),
    }),
    '/api/contratos/verificarContratoActivo': get('Verificar si el trabajador tiene contrato vigente', queryParams(contractQuery), {
      ...ok(200, 'Estado del contrato', 'ContractStatus', R.contractOk),
      ...lookupErrors([400, 401, 404, 405, 429, 500, 503]),
      '403': { description: ERROR_TEXT[403], content: json('ContractForbidden', R.contractForbidden) },
    }),
    '/api/vacaciones': get('Vacaciones de un trabajador', queryParams(listQuery), {
      ...ok(200, 'Registros', 'VacationList', R.listOk),
      ...lookupErrors(READ_ERRORS),
    }),
    '/api/vacaciones/registro/{codigoPila}': get(
      'Un registro por código PILA',
      [{ name: 'codigoPila', in: 'path', required: true, schema: { type: 'string' } }, ...queryParams(recordQuery)],
      { ...ok(200, 'Registro', 'VacationRecord', R.recordOk), ...lookupErrors(READ_ERRORS) },
    ),
    '/api/vacaciones/auditoria': get('Historial de auditoría de un trabajador o un código', queryParams(auditQuery), {
      ...ok(200, 'Historial', 'AuditTrail', R.auditOk),
      ...lookupErrors(READ_ERRORS),
    }),
    '/api/vacaciones/periodos': get(
      'Períodos de causación de vacaciones de un trabajador (CST arts. 186, 187, 190, 488)',
      queryParams(periodsQuery),
      {
        ...ok(200, 'Períodos', 'AccrualPeriods', R.periodsOk),
        ...errors([...READ_ERRORS, 422]),
      },
    ),
    '/api/vacaciones/liquidacion': get(
      'Vista previa de la liquidación de vacaciones al terminar el contrato (CST art. 189 §2); no guarda nada',
      queryParams(settlementQuery),
      { ...ok(200, 'Liquidación', 'Settlement', R.settlementOk), ...errors([...READ_ERRORS, 422]) },
    ),
    '/api/vacaciones/libro': get(
      'Libro de vacaciones (CST art. 187 §3) de la empresa, una subgerencia o un trabajador, en un rango de fechas ' +
        'y como estaba en una fecha de corte; JSON, CSV o XLSX, transmitido a medida que se lee',
      queryParams(bookQuery),
      {
        '200': {
          description: 'El libro, en el formato pedido',
          content: {
            ...json('VacationBook', R.bookOk),
            'text/csv': { schema: { type: 'string', description: 'Una línea por trabajador, período y vacaciones, con encabezado' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
          },
        },
        ...errors(READ_ERRORS),
      },
    ),
    '/api/vacaciones/novedades': get(
      'Novedades de vacaciones de un mes de nómina: una línea por registro con la parte del mes de su amortización, ' +
        'totales por trabajador y del mes; JSON por páginas, CSV o XLSX del mes entero',
      queryParams(noveltiesQuery),
      {
        '200': {
          description: 'Las novedades, en el formato pedido',
          content: {
            ...json('MonthNovelties', noveltiesOk),
            'text/csv': { schema: { type: 'string', description: 'Una línea por novedad, el total de cada trabajador y el del mes' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
          },
        },
        ...errors(READ_ERRORS),
      },
    ),
    '/api/vacaciones/nomina-electronica': get(
      'Nómina electrónica DIAN: el elemento Vacaciones (bajo Devengados) de cada trabajador con vacaciones pagadas en el mes, ' +
        'las que empiezan en él, como estaba el registro en una fecha de corte; XML o JSON, transmitido a medida que se lee',
      queryParams(electronicPayrollQuery),
      {
        '200': {
          description: 'Los fragmentos del mes, en el formato pedido',
          content: {
            'application/xml': {
              schema: {
                type: 'string',
                description:
                  'VacacionesNominaElectronica con un Trabajador por trabajador, cada uno con su elemento Vacaciones en el espacio de nombres ' +
                  'dian:gov:co:facturaelectronica:NominaIndividual',
              },
            },
            ...json('ElectronicPayrollVacations', electronicPayrollOk),
          },
        },
        ...errors(READ_ERRORS),
      },
    ),
    '/api/vacaciones/pasivo': get(
      'Pasivo vacacional en una fecha de corte: por trabajador los días causados y no disfrutados ni pagados y su valor al peso, ' +
        'con totales por subgerencia, contrato de empresa y empresa; lo anticipado aparte; JSON por páginas, CSV o XLSX',
      queryParams(liabilityQuery),
      {
        '200': {
          description: 'El pasivo, en el formato pedido',
          content: {
            ...json('VacationLiability', liabilityOk),
            'text/csv': { schema: { type: 'string', description: 'Una línea por trabajador, luego los totales' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
          },
        },
        ...errors(READ_ERRORS),
      },
    ),
    '/api/vacaciones/pasivo/movimiento': get(
      'Movimiento del pasivo vacacional en un mes: saldo inicial, causado, tomado, ajuste por salario y saldo final, ' +
        'por trabajador y en total; JSON por páginas, CSV o XLSX',
      queryParams(liabilityMovementQuery),
      {
        '200': {
          description: 'El movimiento, en el formato pedido',
          content: {
            ...json('VacationLiabilityMovement', liabilityMovementOk),
            'text/csv': { schema: { type: 'string', description: 'Una línea por trabajador, luego los totales' } },
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
          },
        },
        ...errors(READ_ERRORS),
      },
    ),
    '/api/eventos': get(
      'Flujo de cambios (alcance eventos): los eventos de negocio en orden como CloudEvents 1.0, con espera larga opcional',
      queryParams(feedQuery),
      { ...ok(200, 'Eventos y el cursor siguiente', 'ChangeFeed', feedOk), ...lookupErrors([400, 401, 403, 405, 429, 500, 503]) },
    ),
    '/api/auditoria/verificar': get(
      'Verificar las cadenas de hash de los flujos de un trabajador (alcance auditoria)',
      queryParams(auditVerifyQuery),
      { ...ok(200, 'Resultado de la verificación', 'AuditVerification', R.auditVerifyOk), ...lookupErrors(READ_ERRORS) },
    ),
    '/api/auditoria/exportar': get(
      'Paquete de auditoría de un trabajador o una subgerencia, verificable y reproducible sin el servicio (alcance auditoria)',
      queryParams(auditExportQuery),
      {
        '200': {
          description:
            'El paquete: JSON por líneas en gzip (manifiesto, trabajadores, eventos con su hash, la cabeza de cada flujo ' +
            'y el cierre con los conteos, la raíz de Merkle y el resumen SHA-256 de las líneas anteriores); ' +
            'se verifica con `vacaciones audit verify --bundle`',
          content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
        },
        // 501: the instance keeps its events in KurrentDB.
        ...lookupErrors([...READ_ERRORS, 501]),
      },
    ),
    '/health': { get: { summary: 'Vida del proceso', responses: ok(200, 'Vivo', 'Alive', R.healthOk) } },
    '/health/ready': {
      get: {
        summary: 'Listo: base de datos y almacén de eventos accesibles',
        responses: { ...ok(200, 'Listo', 'Ready', R.readyOk), ...ok(503, 'No listo', 'NotReady', R.notReady) },
      },
    },
  };
  return {
    openapi: '3.0.3',
    tags: TAGS,
    info: {
      title: 'Servicio de vacaciones y estado de contratos',
      version: '1.0.0',
      description: 'Todas las rutas funcionan con y sin el prefijo /api. Los nombres de parámetros no distinguen mayúsculas.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Bearer <API_KEY>' },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <API_KEY>, the same key (X-Api-Key decides when both come)',
        },
      },
      schemas: c.schemas,
    },
    paths: tagged(paths),
  };
}

/** The groups /docs shows, in this order. */
const TAGS = [
  { name: 'vacaciones', description: 'Calcular, registrar, editar, eliminar y aprobar vacaciones' },
  { name: 'contratos', description: 'Estado de los contratos' },
  { name: 'consultas', description: 'Lecturas: datos previos, registros, historial y reportes' },
  { name: 'auditoria', description: 'Cadenas de hash y paquetes de auditoría (API key con alcance auditoria)' },
  { name: 'salud', description: 'Vida y disponibilidad del servicio' },
] as const;

type Tag = (typeof TAGS)[number]['name'];

// Derived from the path and method rather than written on each entry, so that an operation
// added later lands in its group without anyone remembering to tag it.
function tagFor(path: string, method: string): Tag {
  if (path.startsWith('/health')) return 'salud';
  if (path.startsWith('/api/contratos')) return 'contratos';
  if (path.startsWith('/api/auditoria')) return 'auditoria';
  if (method === 'get') return 'consultas';
  return 'vacaciones';
}

function tagged(paths: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item as Record<string, Json>).map(([method, op]) => [method, { tags: [tagFor(path, method)], ...(op as object) }]),
      ),
    ]),
  );
}
