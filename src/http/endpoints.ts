import type { FastifyContextConfig, FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import {
  auditExportQuery,
  auditQuery,
  auditVerifyQuery,
  bookQuery,
  calculateBody,
  closureBody,
  closureCancelBody,
  closureCodeBody,
  codeBody,
  consultQuery,
  contractQuery,
  editBody,
  electronicPayrollQuery,
  feedQuery,
  interruptBody,
  liabilityMovementQuery,
  liabilityQuery,
  planBookingBody,
  planQuery,
  listQuery,
  noveltiesQuery,
  periodsQuery,
  recordQuery,
  settlementQuery,
} from '../app/schemas.ts';
import { methodNotAllowed } from './auth.ts';
import { electronicPayrollOk } from './electronic-payroll-schemas.ts';
import { feedOk, noveltiesOk } from './integration-schemas.ts';
import { liabilityMovementOk, liabilityOk } from './liability-schemas.ts';
import * as R from './response-schemas.ts';

type Json = Record<string, unknown>;

/** How an endpoint's answers are written in the OpenAPI document (src/http/openapi.ts gives them). */
export interface AnswerKit {
  /** A success in JSON, its schema named `name` under components. */
  ok(status: number, description: string, name: string, schema: z.ZodType): Record<string, Json>;
  /** Failures in the vacation envelope (the default) or in another named envelope. */
  errors(codes: number[], name?: string, schema?: z.ZodType): Record<string, Json>;
  /** Failures in the lookup envelope. */
  lookupErrors(codes: number[]): Record<string, Json>;
  /** A JSON body's content entry, its schema named under components. */
  json(name: string, schema: z.ZodType): Json;
  /** A report answered in JSON, CSV or XLSX: the JSON's schema and what a CSV line is. */
  tables(description: string, name: string, schema: z.ZodType, csvLine: string): Record<string, Json>;
  text(code: number): string;
}

/**
 * One endpoint, declared once: the fastify route (`route` below) and the OpenAPI operation
 * (src/http/openapi.ts) are both made from it.
 */
export interface Endpoint {
  method: 'GET' | 'POST';
  /** As the OpenAPI document names it; paths under /api are served without the prefix too. */
  path: string;
  /** The envelope of its refusals and the API key scope it needs (public: no key). */
  config: FastifyContextConfig;
  summary: string;
  /** A GET's query parameters, after its path parameters. */
  query?: z.ZodObject;
  pathParams?: readonly string[];
  /** A POST's form, named under components. */
  form?: readonly [string, z.ZodObject];
  answers(k: AnswerKit): Record<string, Json>;
  /** Whether other methods get the endpoint's 405 (the health checks answer 404 instead). */
  refusesOtherMethods?: boolean;
}

const vacation = { envelope: 'vacation', scope: 'vacaciones' } as const;
const lookup = { envelope: 'lookup', scope: 'vacaciones' } as const;
const audit = { envelope: 'lookup', scope: 'auditoria' } as const;

/** Every vacation write answers these, beside its own success. */
const VACATION_ERRORS = [400, 401, 403, 404, 405, 413, 415, 422, 429, 500, 503];
/** The read endpoints' failures, in the lookup envelope. */
const READ_ERRORS = [400, 401, 403, 404, 405, 429, 500, 503];
/** The writes that take an Idempotency-Key add its answers. */
const IDEMPOTENT_ERRORS = [...VACATION_ERRORS, 409];

const create = ['VacationForm', calculateBody] as const;
const byCode = ['CodeForm', codeBody] as const;

const post = (path: string, summary: string, form: readonly [string, z.ZodObject], answers: Endpoint['answers']): Endpoint => ({
  method: 'POST',
  path,
  config: vacation,
  summary,
  form,
  answers,
});
const get = (path: string, config: FastifyContextConfig, summary: string, query: z.ZodObject, answers: Endpoint['answers']): Endpoint => ({
  method: 'GET',
  path,
  config,
  summary,
  query,
  answers,
});

export const ENDPOINTS = {
  calculate: post('/api/vacaciones/calculate', 'Calcular vacaciones sin guardarlas', create, (k) => ({
    ...k.ok(200, 'Cálculo', 'Calculation', R.calculateOk),
    ...k.errors(VACATION_ERRORS),
  })),
  add: post('/api/vacaciones/add', 'Registrar vacaciones', create, (k) => ({
    ...k.ok(201, 'Registro creado', 'Created', R.addOk),
    ...k.errors(IDEMPOTENT_ERRORS),
  })),
  edit: post('/api/vacaciones/edit', 'Editar vacaciones (nuevo registro y código PILA)', ['EditForm', editBody], (k) => ({
    ...k.ok(200, 'Registro reemplazado', 'Edited', R.editOk),
    ...k.errors(IDEMPOTENT_ERRORS),
  })),
  delete: post('/api/vacaciones/delete', 'Eliminar vacaciones no aprobadas', byCode, (k) => ({
    ...k.ok(200, 'Registro eliminado', 'Deleted', R.deleteOk),
    ...k.errors(IDEMPOTENT_ERRORS),
  })),
  approve: post('/api/vacaciones/approve', 'Aprobar vacaciones', byCode, (k) => ({
    ...k.ok(200, 'Registro aprobado', 'Approved', R.approveOk),
    ...k.errors(IDEMPOTENT_ERRORS),
  })),
  interrupt: post(
    '/api/vacaciones/interrupt',
    'Interrumpir vacaciones aprobadas y disfrutadas en curso (CST art. 188); los días no disfrutados vuelven al saldo',
    ['InterruptForm', interruptBody],
    (k) => ({ ...k.ok(200, 'Vacaciones interrumpidas', 'Interrupted', R.interruptOk), ...k.errors(IDEMPOTENT_ERRORS) }),
  ),
  closure: post(
    '/api/vacaciones/colectivas',
    'Vacaciones colectivas de una o más subgerencias o de un contrato de empresa: vista previa (vista=previa) o reserva de todo o nada',
    ['ClosureForm', closureBody],
    (k) => ({
      ...k.ok(200, 'Vista previa: quién queda, con qué cifras, y quién no y por qué', 'ClosurePreview', R.closurePreviewOk),
      ...k.ok(201, 'Colectiva reservada: un registro por trabajador, todos con su identificador', 'ClosureBooked', R.closureBookedOk),
      ...k.errors(IDEMPOTENT_ERRORS),
    }),
  ),
  closureApprove: post(
    '/api/vacaciones/colectivas/aprobar',
    'Aprobar juntos los registros pendientes de una colectiva',
    ['ClosureCodeForm', closureCodeBody],
    (k) => ({ ...k.ok(200, 'Registros aprobados', 'ClosureChange', R.closureChangeOk), ...k.errors(IDEMPOTENT_ERRORS) }),
  ),
  closureCancel: post(
    '/api/vacaciones/colectivas/cancelar',
    'Cancelar una colectiva antes de su inicio: sus registros pendientes se eliminan con el motivo',
    ['ClosureCancelForm', closureCancelBody],
    (k) => ({ ...k.ok(200, 'Colectiva cancelada', 'ClosureChange', R.closureChangeOk), ...k.errors(IDEMPOTENT_ERRORS) }),
  ),
  consult: get('/api/vacaciones/consultdatavacations', lookup, 'Datos previos a solicitar vacaciones', consultQuery, (k) => ({
    ...k.ok(200, 'Datos de vacaciones', 'VacationData', R.consultOk),
    ...k.lookupErrors([400, 401, 403, 404, 405, 422, 429, 500, 503]),
  })),
  contract: get(
    '/api/contratos/verificarContratoActivo',
    { envelope: 'contract', scope: 'contratos:verificar' },
    'Verificar si el trabajador tiene contrato vigente',
    contractQuery,
    (k) => ({
      ...k.ok(200, 'Estado del contrato', 'ContractStatus', R.contractOk),
      ...k.lookupErrors([400, 401, 404, 405, 429, 500, 503]),
      '403': { description: k.text(403), content: k.json('ContractForbidden', R.contractForbidden) },
    }),
  ),
  list: get('/api/vacaciones', lookup, 'Vacaciones de un trabajador', listQuery, (k) => ({
    ...k.ok(200, 'Registros', 'VacationList', R.listOk),
    ...k.lookupErrors(READ_ERRORS),
  })),
  record: {
    ...get('/api/vacaciones/registro/{codigoPila}', lookup, 'Un registro por código PILA', recordQuery, (k) => ({
      ...k.ok(200, 'Registro', 'VacationRecord', R.recordOk),
      ...k.lookupErrors(READ_ERRORS),
    })),
    pathParams: ['codigoPila'],
  },
  audit: get('/api/vacaciones/auditoria', lookup, 'Historial de auditoría de un trabajador o un código', auditQuery, (k) => ({
    ...k.ok(200, 'Historial', 'AuditTrail', R.auditOk),
    ...k.lookupErrors(READ_ERRORS),
  })),
  periods: get(
    '/api/vacaciones/periodos',
    vacation,
    'Períodos de causación de vacaciones de un trabajador (CST arts. 186, 187, 190, 488)',
    periodsQuery,
    (k) => ({ ...k.ok(200, 'Períodos', 'AccrualPeriods', R.periodsOk), ...k.errors([...READ_ERRORS, 422]) }),
  ),
  settlement: get(
    '/api/vacaciones/liquidacion',
    vacation,
    'Vista previa de la liquidación de vacaciones al terminar el contrato (CST art. 189 §2); no guarda nada',
    settlementQuery,
    (k) => ({ ...k.ok(200, 'Liquidación', 'Settlement', R.settlementOk), ...k.errors([...READ_ERRORS, 422]) }),
  ),
  book: get(
    '/api/vacaciones/libro',
    vacation,
    'Libro de vacaciones (CST art. 187 §3) de la empresa, una subgerencia o un trabajador, en un rango de fechas ' +
      'y como estaba en una fecha de corte; JSON, CSV o XLSX, transmitido a medida que se lee',
    bookQuery,
    (k) => ({
      ...k.tables(
        'El libro, en el formato pedido',
        'VacationBook',
        R.bookOk,
        'Una línea por trabajador, período y vacaciones, con encabezado',
      ),
      ...k.errors(READ_ERRORS),
    }),
  ),
  novelties: get(
    '/api/vacaciones/novedades',
    vacation,
    'Novedades de vacaciones de un mes de nómina: una línea por registro con la parte del mes de su amortización, ' +
      'totales por trabajador y del mes; JSON por páginas, CSV o XLSX del mes entero',
    noveltiesQuery,
    (k) => ({
      ...k.tables(
        'Las novedades, en el formato pedido',
        'MonthNovelties',
        noveltiesOk,
        'Una línea por novedad, el total de cada trabajador y el del mes',
      ),
      ...k.errors(READ_ERRORS),
    }),
  ),
  electronicPayroll: get(
    '/api/vacaciones/nomina-electronica',
    vacation,
    'Nómina electrónica DIAN: el elemento Vacaciones (bajo Devengados) de cada trabajador con vacaciones pagadas en el mes, ' +
      'las que empiezan en él, como estaba el registro en una fecha de corte; XML o JSON, transmitido a medida que se lee',
    electronicPayrollQuery,
    (k) => ({
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
          ...k.json('ElectronicPayrollVacations', electronicPayrollOk),
        },
      },
      ...k.errors(READ_ERRORS),
    }),
  ),
  plan: get(
    '/api/vacaciones/plan',
    vacation,
    'Plan anual de vacaciones: propone inicio y días a cada trabajador que debe días en el año, sin superar el límite de personas ' +
      'a la vez ni cruzarse con otras vacaciones; primero los días que prescriben, luego los que acumularían; es una propuesta, nada se guarda',
    planQuery,
    (k) => ({ ...k.ok(200, 'El plan propuesto', 'AnnualPlan', R.planOk), ...k.errors([...READ_ERRORS, 422]) }),
  ),
  planBooking: post(
    '/api/vacaciones/plan/reservar',
    'Reservar el plan anual de una vez, todo o nada: cada línea se juzga como un registro individual, en orden, ' +
      'contando las anteriores en el límite de personas a la vez; si alguna no cabe no se guarda nada',
    ['PlanBookingForm', planBookingBody],
    (k) => ({
      ...k.ok(201, 'Plan reservado: un registro por línea, en el orden de las líneas', 'PlanBooked', R.planBookedOk),
      ...k.errors(IDEMPOTENT_ERRORS),
    }),
  ),
  liability: get(
    '/api/vacaciones/pasivo',
    vacation,
    'Pasivo vacacional en una fecha de corte: por trabajador los días causados y no disfrutados ni pagados y su valor al peso, ' +
      'con totales por subgerencia, contrato de empresa y empresa; lo anticipado aparte; JSON por páginas, CSV o XLSX',
    liabilityQuery,
    (k) => ({
      ...k.tables('El pasivo, en el formato pedido', 'VacationLiability', liabilityOk, 'Una línea por trabajador, luego los totales'),
      ...k.errors(READ_ERRORS),
    }),
  ),
  liabilityMovement: get(
    '/api/vacaciones/pasivo/movimiento',
    vacation,
    'Movimiento del pasivo vacacional en un mes: saldo inicial, causado, tomado, ajuste por salario y saldo final, ' +
      'por trabajador y en total; JSON por páginas, CSV o XLSX',
    liabilityMovementQuery,
    (k) => ({
      ...k.tables(
        'El movimiento, en el formato pedido',
        'VacationLiabilityMovement',
        liabilityMovementOk,
        'Una línea por trabajador, luego los totales',
      ),
      ...k.errors(READ_ERRORS),
    }),
  ),
  feed: get(
    '/api/eventos',
    { envelope: 'lookup', scope: 'eventos' },
    'Flujo de cambios (alcance eventos): los eventos de negocio en orden como CloudEvents 1.0, con espera larga opcional',
    feedQuery,
    (k) => ({
      ...k.ok(200, 'Eventos y el cursor siguiente', 'ChangeFeed', feedOk),
      ...k.lookupErrors([400, 401, 403, 405, 429, 500, 503]),
    }),
  ),
  auditVerify: get(
    '/api/auditoria/verificar',
    audit,
    'Verificar las cadenas de hash de los flujos de un trabajador (alcance auditoria)',
    auditVerifyQuery,
    (k) => ({ ...k.ok(200, 'Resultado de la verificación', 'AuditVerification', R.auditVerifyOk), ...k.lookupErrors(READ_ERRORS) }),
  ),
  auditExport: get(
    '/api/auditoria/exportar',
    audit,
    'Paquete de auditoría de un trabajador o una subgerencia, verificable y reproducible sin el servicio (alcance auditoria)',
    auditExportQuery,
    (k) => ({
      '200': {
        description:
          'El paquete: JSON por líneas en gzip (manifiesto, trabajadores, eventos con su hash, la cabeza de cada flujo ' +
          'y el cierre con los conteos, la raíz de Merkle y el resumen SHA-256 de las líneas anteriores); ' +
          'se verifica con `vacaciones audit verify --bundle`',
        content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
      },
      // 501: the instance keeps its events in KurrentDB.
      ...k.lookupErrors([...READ_ERRORS, 501]),
    }),
  ),
  health: {
    method: 'GET',
    path: '/health',
    config: { public: true },
    summary: 'Vida del proceso',
    answers: (k) => k.ok(200, 'Vivo', 'Alive', R.healthOk),
    refusesOtherMethods: false,
  },
  ready: {
    method: 'GET',
    path: '/health/ready',
    config: { public: true },
    summary: 'Listo: base de datos y almacén de eventos accesibles',
    answers: (k) => ({ ...k.ok(200, 'Listo', 'Ready', R.readyOk), ...k.ok(503, 'No listo', 'NotReady', R.notReady) }),
    refusesOtherMethods: false,
  },
} satisfies Record<string, Endpoint>;

const OTHER_METHODS = {
  GET: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  POST: ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
} as const;

/** The path fastify serves an endpoint at, inside the /api prefix (and beside it), with `:name` parameters. */
export const routePath = (e: Endpoint) => e.path.replace(/^\/api(?=\/)/, '').replace(/\{(\w+)\}/g, ':$1');

/** The endpoint's route, and the 405 of its other methods. */
export function route(app: FastifyInstance, e: Endpoint, handler: RouteHandlerMethod): void {
  const url = routePath(e);
  app.route({ method: e.method, url, config: e.config, handler });
  if (e.refusesOtherMethods === false) return;
  app.route({ method: [...OTHER_METHODS[e.method]], url, config: e.config, handler: methodNotAllowed(e.method) });
}
