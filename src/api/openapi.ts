// The OpenAPI 3.1 document, generated from the same route declarations that validate requests:
// the /api/v0 routes and the collab listener's REST (openapi-collab.ts), one document for both.
import { z } from 'zod'
import type { RestDecls } from '../collab/rest/route-model.js'
import { collabPaths, type Json, type SchemaOf } from './openapi-collab.js'
import type { RouteDef } from './route.js'

const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.int()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown().optional(),
    ctx: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ValidationError' })
const HTTPValidationError = z
  .object({ detail: z.array(ValidationError).optional() })
  .meta({ id: 'HTTPValidationError' })
const Detail = z.object({ detail: z.string() }).meta({ id: 'ErrorDetail' })
const Message = z.object({ message: z.string() }).meta({ id: 'ErrorMessage' })

/** A collab REST call carries its capability token as `?yauth=`, or as a bearer token. */
const COLLAB_SECURITY = {
  CollabToken: {
    type: 'apiKey',
    in: 'query',
    name: 'yauth',
    description: 'the capability token minted by POST /api/v0/assets/{asset_id}/collab-token',
  },
  CollabBearer: { type: 'http', scheme: 'bearer', description: 'the same token as Authorization: Bearer' },
}

/** A schema's JSON Schema; those with a `.meta({id})` go into `components` (z.toJSONSchema emits them under $defs). */
function schemaCollector(components: Record<string, Json>): SchemaOf {
  return (s, io) => {
    const raw = JSON.stringify(z.toJSONSchema(s, { io, unrepresentable: 'any' }))
    const js = JSON.parse(raw.replaceAll('"#/$defs/', '"#/components/schemas/')) as Json
    const defs = (js.$defs ?? {}) as Record<string, Json>
    for (const [id, d] of Object.entries(defs)) components[id] = d
    delete js.$defs
    delete js.$schema
    // A schema with an id comes back as {$ref} to its own entry in $defs, now a component.
    return js
  }
}

/** The collab listener's routes and where it is served, for the document's collab paths. */
export interface CollabRest {
  /** the routes (or only their declarations, for the client's generated types) */
  routes: RestDecls
  url: string
}

export function openApiDocument(routes: RouteDef[], version: string, collab?: CollabRest): Json {
  const components: Record<string, Json> = {}
  const schemaOf = schemaCollector(components)
  const paths: Record<string, Json> = {}
  for (const r of routes) {
    const path = '/api/v0' + r.path.replace(/:([A-Za-z_]\w*)/g, '{$1}')
    const parameters: Json[] = []
    for (const [where, shape] of [
      ['path', r.params],
      ['query', r.query],
    ] as const) {
      if (!shape) continue
      for (const [name, field] of Object.entries(shape.shape as Record<string, z.ZodType>)) {
        parameters.push({
          name,
          in: where,
          required: where === 'path' || !field.safeParse(undefined).success,
          schema: schemaOf(field, 'input'),
        })
      }
    }
    const errorSchema = r.errorShape === 'message' ? Message : Detail
    const responses: Json = {
      ...(r.successStatus === 204
        ? { 204: { description: 'No Content' } }
        : {
            [r.successStatus ?? 200]: {
              description: 'Successful Response',
              content: { 'application/json': { schema: schemaOf(r.response, 'output') } },
            },
          }),
      401: {
        description: 'missing or unknown X-API-KEY',
        content: { 'application/json': { schema: schemaOf(errorSchema, 'output') } },
      },
      422: {
        description: 'Validation Error',
        content: { 'application/json': { schema: schemaOf(HTTPValidationError, 'output') } },
      },
    }
    for (const [status, description] of Object.entries(r.errors ?? {})) {
      responses[status] = { description, content: { 'application/json': { schema: schemaOf(errorSchema, 'output') } } }
    }
    paths[path] ??= {}
    paths[path]![r.method] = {
      operationId: r.operationId,
      summary: r.summary,
      tags: r.tags,
      ...(parameters.length ? { parameters } : {}),
      ...(r.body
        ? {
            requestBody: {
              required: !r.bodyOptional,
              content: { 'application/json': { schema: schemaOf(r.body, 'input') } },
            },
          }
        : {}),
      responses,
      ...(r.public ? {} : { security: [{ APIKeyHeader: [] }] }),
    }
  }
  if (collab) Object.assign(paths, collabPaths(collab, schemaOf))
  return {
    openapi: '3.1.0',
    info: { title: 'Tandem API', version },
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        ...(collab ? COLLAB_SECURITY : {}),
      },
    },
  }
}
