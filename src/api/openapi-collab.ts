// The collab listener's REST in the OpenAPI document: every declared route (collab/rest/), under
// its own path `/{name}/v1/{org}/{doc_id}[/{id}[/{action}]]` with a `servers` entry naming the
// collab listener, its token (`yauth`), and Yjs bytes (application/octet-stream) where it takes or
// answers them. Errors keep the listener's `{"error", "code"}` shape.
import { z } from 'zod'
import type { RestDecls, RestMethod } from '../collab/rest/route-model.js'

type RestRoute = NonNullable<RestDecls[string][RestMethod]>

export type Json = Record<string, unknown>
/** A zod schema as JSON Schema, its named parts collected into the document's components. */
export type SchemaOf = (s: z.ZodType, io: 'input' | 'output') => Json

const CollabError = z.object({ error: z.string(), code: z.string() }).meta({ id: 'CollabError' })
const BYTES = {
  'application/octet-stream': {
    schema: { type: 'string', contentMediaType: 'application/octet-stream', description: 'a Yjs update' },
  },
}
const COMMON_ERRORS: Record<number, string> = {
  400: 'a malformed query or body (the message names it)',
  401: 'a missing, invalid or expired token',
  403: 'a read-only token on a write, another document’s token, or an agent held for approval',
  404: 'no such document, id or path',
}

const segment = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
})

/** The paths a route answers on: without an id, with one, with an action after it. */
export function collabRoutePaths(name: string, route: Pick<RestRoute, 'id' | 'actions'>): string[] {
  const base = `/${name}/v1/{org}/{doc_id}`
  if (route.actions?.length) return [...(route.id === 'required' ? [] : [base]), `${base}/{id}/{action}`]
  if (route.id === 'required') return [`${base}/{id}`]
  return route.id === 'optional' ? [base, `${base}/{id}`] : [base]
}

function operation(name: string, method: RestMethod, route: RestRoute, path: string, schemaOf: SchemaOf): Json {
  const parameters: Json[] = [segment('org', 'the organisation'), segment('doc_id', 'the document')]
  if (path.includes('{id}')) parameters.push(segment('id', `the ${name} record’s id`))
  if (path.includes('{action}'))
    parameters.push(segment('action', 'what to do with it', { type: 'string', enum: [...(route.actions ?? [])] }))
  for (const [field, schema] of Object.entries((route.query?.shape ?? {}) as Record<string, z.ZodType>)) {
    const repeated = schemaOf(schema, 'input')
    parameters.push({
      name: field,
      in: 'query',
      required: !schema.safeParse(undefined).success,
      schema: repeated,
      ...(repeated.type === 'array' ? { explode: true } : {}),
    })
  }
  const errorBody = { 'application/json': { schema: schemaOf(CollabError, 'output') } }
  const responses: Json = {}
  for (const [status, answer] of Object.entries(route.answers)) {
    const content = {
      ...(answer.json ? { 'application/json': { schema: schemaOf(answer.json, 'output') } } : {}),
      ...(answer.bytes ? BYTES : {}),
    }
    responses[status] = { description: answer.description, ...(Object.keys(content).length ? { content } : {}) }
  }
  for (const [status, description] of Object.entries({ ...COMMON_ERRORS, ...route.errors }))
    responses[status] = { description, content: errorBody }
  const suffix = path.endsWith('{action}') ? '_action' : path.endsWith('{id}') ? '_by_id' : ''
  return {
    operationId: `${method.toLowerCase()}_${name}${suffix}`,
    summary: route.summary,
    tags: ['collab'],
    parameters,
    ...(route.body
      ? {
          requestBody: {
            required: !route.body.optional,
            content: {
              'application/json': { schema: schemaOf(route.body.json, 'input') },
              ...(route.body.bytes ? BYTES : {}),
              ...Object.fromEntries(
                (route.body.pieces?.media ?? []).map((m) => [
                  m,
                  { schema: { type: 'string', description: 'read as it arrives, not whole' } },
                ]),
              ),
            },
          },
        }
      : {}),
    responses,
    security: [{ CollabToken: [] }, { CollabBearer: [] }],
    'x-access': route.access,
  }
}

/** The document's paths for every collab REST route, each served by the collab listener at `url`. */
export function collabPaths(collab: { routes: RestDecls; url: string }, schemaOf: SchemaOf): Record<string, Json> {
  const paths: Record<string, Json> = {}
  const servers = [{ url: collab.url, description: 'the collab listener' }]
  for (const [name, methods] of Object.entries(collab.routes)) {
    for (const [method, route] of Object.entries(methods) as [RestMethod, RestRoute][]) {
      for (const path of collabRoutePaths(name, route)) {
        paths[path] ??= { servers }
        paths[path]![method.toLowerCase()] = operation(name, method, route, path, schemaOf)
      }
    }
  }
  return paths
}
