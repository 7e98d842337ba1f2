import { z } from 'zod';
import { auditQuery, calculateBody, codeBody, consultQuery, contractQuery, editBody, listQuery, recordQuery } from './schemas.ts';

type Json = Record<string, unknown>;

const jsonSchema = (s: z.ZodType): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
};

const vacationError: Json = {
  type: 'object',
  required: ['success', 'statusCode', 'message'],
  properties: {
    success: { const: false },
    statusCode: { type: 'integer' },
    message: { type: 'string' },
    errors: { oneOf: [{ type: 'object', additionalProperties: { type: 'string' } }, { type: 'array', items: { type: 'string' } }] },
  },
};
const lookupError: Json = {
  type: 'object',
  required: ['success', 'message'],
  properties: { success: { const: false }, statusCode: { type: 'integer' }, message: { type: 'string' } },
};
const contractForbidden: Json = {
  type: 'object',
  properties: { success: { const: false }, status: { const: 403 }, error: { type: 'object', properties: { message: { type: 'string' } } } },
};

function formBody(schema: z.ZodObject): Json {
  const s = jsonSchema(schema);
  return {
    required: true,
    content: {
      'application/x-www-form-urlencoded': { schema: s },
      'multipart/form-data': { schema: s },
      'application/json': { schema: s },
    },
  };
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

const errors = (codes: number[], schema: Json = vacationError) =>
  Object.fromEntries(codes.map((c) => [String(c), { description: 'Error', content: { 'application/json': { schema } } }]));

const ok = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });

function post(summary: string, body: z.ZodObject, success: Record<string, Json>, codes: number[]): Json {
  return { post: { summary, requestBody: formBody(body), responses: { ...success, ...errors(codes) }, security: [{ apiKey: [] }] } };
}

/** The OpenAPI 3 description of the service, built from the request schemas that validate requests. */
export function openApiDocument(): Json {
  const paths: Record<string, Json> = {
    '/api/vacaciones/calculate': post('Calcular vacaciones sin guardarlas', calculateBody, { '200': ok('Cálculo') }, [400, 401, 403, 404, 405, 422, 429]),
    '/api/vacaciones/add': post('Registrar vacaciones', calculateBody, { '201': ok('Registro creado') }, [400, 401, 403, 404, 405, 409, 422, 429, 503]),
    '/api/vacaciones/edit': post('Editar vacaciones (nuevo registro y código PILA)', editBody, { '200': ok('Registro reemplazado') }, [400, 401, 403, 404, 405, 409, 422, 429, 500, 503]),
    '/api/vacaciones/delete': post('Eliminar vacaciones no aprobadas', codeBody, { '200': ok('Registro eliminado') }, [400, 401, 403, 404, 405, 409, 422, 429, 500]),
    '/api/vacaciones/approve': post('Aprobar vacaciones', codeBody, { '200': ok('Registro aprobado') }, [400, 401, 403, 404, 405, 409, 422, 429]),
    '/api/vacaciones/consultdatavacations': {
      get: { summary: 'Datos previos a solicitar vacaciones', parameters: queryParams(consultQuery), responses: { '200': ok('Datos de vacaciones'), ...errors([400, 401, 403, 404, 405, 422, 500], lookupError) }, security: [{ apiKey: [] }] },
    },
    '/api/contratos/verificarContratoActivo': {
      get: {
        summary: 'Verificar si el trabajador tiene contrato vigente',
        parameters: queryParams(contractQuery),
        responses: { '200': ok('Estado del contrato'), ...errors([400, 401, 404, 405, 500], lookupError), '403': { description: 'Sin permiso', content: { 'application/json': { schema: contractForbidden } } } },
        security: [{ apiKey: [] }],
      },
    },
    '/api/vacaciones': { get: { summary: 'Vacaciones de un trabajador', parameters: queryParams(listQuery), responses: { '200': ok('Registros'), ...errors([400, 401, 404], lookupError) }, security: [{ apiKey: [] }] } },
    '/api/vacaciones/registro/{codigoPila}': {
      get: {
        summary: 'Un registro por código PILA',
        parameters: [{ name: 'codigoPila', in: 'path', required: true, schema: { type: 'string' } }, ...queryParams(recordQuery)],
        responses: { '200': ok('Registro'), ...errors([400, 401, 404], lookupError) },
        security: [{ apiKey: [] }],
      },
    },
    '/api/vacaciones/auditoria': { get: { summary: 'Historial de auditoría de un trabajador o un código', parameters: queryParams(auditQuery), responses: { '200': ok('Historial'), ...errors([400, 401, 404], lookupError) }, security: [{ apiKey: [] }] } },
    '/health': { get: { summary: 'Vida del proceso', responses: { '200': ok('Vivo') } } },
    '/health/ready': { get: { summary: 'Listo: base de datos y almacén de eventos accesibles', responses: { '200': ok('Listo'), '503': ok('No listo') } } },
  };
  return {
    openapi: '3.0.3',
    info: {
      title: 'Servicio de vacaciones y estado de contratos',
      version: '1.0.0',
      description: 'Todas las rutas funcionan con y sin el prefijo /api. Los nombres de parámetros no distinguen mayúsculas.',
    },
    components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Bearer <API_KEY>' } } },
    paths,
  };
}
