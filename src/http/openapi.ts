import { z } from 'zod';
import { ENDPOINTS, type AnswerKit, type Endpoint } from './endpoints.ts';
import * as R from './response-schemas.ts';

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

/**
 * The OpenAPI 3.0 description of the service, built from the request schemas that validate
 * requests and the response schemas the tests hold the answers to.
 */
export function openApiDocument(): Json {
  const c = new Components();
  const json = (name: string, schema: z.ZodType) => ({ 'application/json': { schema: c.ref(name, schema) } });
  const errors = (codes: number[], name = 'VacationError', schema: z.ZodType = R.vacationError) =>
    Object.fromEntries(codes.map((code) => [String(code), { description: ERROR_TEXT[code] ?? 'Error', content: json(name, schema) }]));
  const kit: AnswerKit = {
    ok: (status, description, name, schema) => ({ [String(status)]: { description, content: json(name, schema) } }),
    errors,
    lookupErrors: (codes) => errors(codes, 'LookupError', R.lookupError),
    json,
    tables: (description, name, schema, csvLine) => ({
      '200': {
        description,
        content: {
          ...json(name, schema),
          'text/csv': { schema: { type: 'string', description: csvLine } },
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
        },
      },
    }),
    text: (code) => ERROR_TEXT[code] ?? 'Error',
  };
  const formBody = ([name, schema]: readonly [string, z.ZodObject]): Json => {
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
  const operation = (e: Endpoint): Json => {
    // A form is named right after the operation's success, before its failures: the order the
    // components have always been listed in, which the generated client follows.
    let body: Json | undefined;
    const named = () => (body ??= e.form && formBody(e.form));
    const ok: AnswerKit['ok'] = (...a) => {
      const answer = kit.ok(...a);
      named();
      return answer;
    };
    const responses = e.answers({ ...kit, ok });
    named();
    const request: Json = body
      ? { requestBody: body }
      : e.query || e.pathParams
        ? {
            parameters: [
              ...(e.pathParams ?? []).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
              ...(e.query ? queryParams(e.query) : []),
            ],
          }
        : {};
    const security = e.config.public ? {} : { security: [{ apiKey: [] }, { bearer: [] }] };
    return { summary: e.summary, ...request, responses, ...security };
  };
  const paths: Record<string, Json> = {};
  for (const e of Object.values(ENDPOINTS) as Endpoint[]) {
    paths[e.path] = { ...paths[e.path], [e.method.toLowerCase()]: operation(e) };
  }
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
