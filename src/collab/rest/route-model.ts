// The collab REST route model (`/{name}/v1/{org}/{doc_id}[/{id}[/{action}]]?yauth=`), independent
// of the HTTP library. A route is declared once (access, path segments, zod schemas of its query,
// body and answers): the dispatch checks the access from it, `routeInput` validates the request
// against it before the handler runs, and the OpenAPI document describes it (rest/openapi.ts).
// The declarations live in light modules, so a route whose handler module is loaded on first use
// (`lazyRoutes`) is still checked and described at start.
import type { Readable } from 'node:stream'
import type { z } from 'zod'
import type { Capability } from '../../auth/capability.js'
import type { Config } from '../../infra/config.js'
import type { DocStore } from '../../storage/doc-store.js'
import type { StorageHealth } from '../../storage/health.js'
import type { RoomRegistry } from '../registry.js'
import { routeInput } from './route-input.js'

export interface RestRequest {
  method: string
  org: string
  doc: string
  /** the trailing `/{id}` segment, for routes that take one */
  id: string | null
  /** a segment after the id (`/{id}/accept`), for routes that name their actions */
  action: string | null
  cap: Capability
  query: URLSearchParams
  accept: string
  contentType: string
  body: Uint8Array | null
  /** the body as it arrives, for a route that takes its media as pieces (`pieces` of its body) */
  pieces: Readable | null
  /** the token is an agent's whose edits the workspace holds for approval (set on rw routes) */
  agentHeld?: boolean
}

export interface RestResponse {
  status: number
  json?: unknown
  /** a JSON body serialised already (by a worker thread, say) */
  jsonText?: string
  bytes?: Uint8Array
  headers?: Record<string, string>
}

export interface RestContext {
  registry: RoomRegistry
  store: DocStore
  storageHealth: StorageHealth
  config: Config
  now: () => number
  /** a named version of `docId`: its seq and encoded document, null when there is none (rollback `{version}`) */
  versionState(docId: string, id: string): Promise<{ seq: number; state: Uint8Array } | null>
}

interface RestBodyDecl {
  /** the JSON body, validated */
  json: z.ZodType
  /** application/octet-stream is taken too, as raw bytes (a Yjs update) */
  bytes?: boolean
  /** an empty body counts as `{}` */
  optional?: boolean
  /** what a 415 tells the caller to send */
  media?: string
  /**
   * Media the route reads as the body arrives (`req.pieces`), not whole, up to `limit` bytes: the
   * JSON schema is not applied to them (a stream's text in one request, say).
   */
  pieces?: { media: readonly string[]; limit: number }
}

/** One success answer: its description and its JSON schema, or `bytes` (application/octet-stream). */
interface RestAnswerDecl {
  description: string
  json?: z.ZodType
  /** the same answer as raw bytes on `Accept: application/octet-stream` */
  bytes?: boolean
}

interface RestRouteDecl {
  summary: string
  /** the least access the token must carry */
  access: 'r' | 'rw'
  /**
   * The route applies the agents' policy itself (content: an agent's write is held as a
   * suggestion). Any other rw route refuses an agent's token where its workspace requires approval.
   */
  agentsHeld?: boolean
  /**
   * Such an agent may still take back its own suggestions here (the `reject` action, which is a
   * withdrawal for the author; the route refuses it on anyone else's, seeing `agentHeld`).
   */
  agentsWithdraw?: boolean
  /** whether the path ends in `/{id}`: never (default), optionally, or always */
  id?: 'optional' | 'required'
  /** the segments a path may have after the id (`/{id}/accept`); none by default */
  actions?: readonly string[]
  /** the deepest JSON body the route takes, where its documents need more than --max-json-depth */
  jsonDepth?: number
  /** query parameters: a scalar field takes the parameter's first value, a z.array every value */
  query?: z.ZodObject
  body?: RestBodyDecl
  answers: Partial<Record<200 | 201 | 202 | 204, RestAnswerDecl>>
  /** error statuses the route documents besides 400, 401, 403 and 404 */
  errors?: Record<number, string>
}

export type RestMethod = 'GET' | 'PATCH' | 'POST' | 'DELETE'

export type RestDecls = Record<string, Partial<Record<RestMethod, RestRouteDecl>>>

type QueryOf<D> = D extends { query: infer Q extends z.ZodType } ? z.output<Q> : Record<string, never>
type BodyOf<D> = D extends { body: { json: infer B extends z.ZodType; bytes: true } }
  ? z.output<B> | Uint8Array
  : D extends { body: { json: infer B extends z.ZodType } }
    ? z.output<B>
    : undefined

/** What a handler receives, validated against its declaration. */
export interface RestInput<D> {
  query: QueryOf<D>
  body: BodyOf<D>
}

type RestHandler<D> = (req: RestRequest, ctx: RestContext, input: RestInput<D>) => Promise<RestResponse>

/** A handler for every route of a declaration table. */
export type RestHandlers<S extends RestDecls> = { [N in keyof S]: { [M in keyof S[N]]-?: RestHandler<S[N][M]> } }

/** A declared route with its handle: validates the request, then calls the handler. */
export interface RestRoute extends RestRouteDecl {
  handle(req: RestRequest, ctx: RestContext): Promise<RestResponse>
}

export type RestRoutes = Record<string, Partial<Record<RestMethod, RestRoute>>>

/** Keeps the literal types of a declaration table (its zod schemas type the handlers' input). */
export const declareRoutes = <const S extends RestDecls>(decls: S): S => decls

function routesOf<S extends RestDecls>(
  decls: S,
  handlers: () => Promise<RestHandlers<S>> | RestHandlers<S>,
): RestRoutes {
  const routes: RestRoutes = {}
  for (const [name, methods] of Object.entries(decls)) {
    const entry: RestRoutes[string] = {}
    for (const [method, decl] of Object.entries(methods) as [RestMethod, RestRouteDecl][]) {
      entry[method] = {
        ...decl,
        async handle(req, ctx) {
          // checked before the handler's module is even loaded: a malformed call costs no import
          const input = routeInput(decl, req)
          const handler = ((await handlers()) as Record<string, Record<string, RestHandler<RestRouteDecl>>>)[name]![
            method
          ]!
          return handler(req, ctx, input as RestInput<RestRouteDecl>)
        },
      }
    }
    routes[name] = entry
  }
  return routes
}

/** Routes whose handlers are at hand. */
export const bindRoutes = <S extends RestDecls>(decls: S, handlers: RestHandlers<S>): RestRoutes =>
  routesOf(decls, () => handlers)

/**
 * Routes whose handlers' module is imported on their first request, so a start does not load it:
 * the declaration (light) answers the dispatch's access and body checks and the validation up front.
 */
export function lazyRoutes<S extends RestDecls>(decls: S, load: () => Promise<RestHandlers<S>>): RestRoutes {
  let loaded: Promise<RestHandlers<S>> | undefined
  return routesOf(decls, () => (loaded ??= load()))
}
