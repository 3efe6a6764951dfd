// Collab REST routes (`/{name}/v1/{org}/{doc_id}?yauth=`), independent of the HTTP library: the
// adapter verifies the token, checks the document and the access, reads the body, then calls here.
import type { Capability } from '../../auth/capability.js'
import type { Config } from '../../infra/config.js'
import type { DocStore } from '../../storage/doc-store.js'
import type { StorageHealth } from '../../storage/health.js'
import type { RoomRegistry } from '../registry.js'

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

interface RestRoute {
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
  /** whether the handler reads a request body */
  body?: boolean
  /** whether the path ends in `/{id}`: never (default), optionally, or always */
  id?: 'optional' | 'required'
  /** the segments a path may have after the id (`/{id}/accept`); none by default */
  actions?: readonly string[]
  /** the deepest JSON body the route takes, where its documents need more than --max-json-depth */
  jsonDepth?: number
  handle(req: RestRequest, ctx: RestContext): Promise<RestResponse>
}

export type RestMethod = 'GET' | 'PATCH' | 'POST' | 'DELETE'

export type RestRoutes = Record<string, Partial<Record<RestMethod, RestRoute>>>

/** A route's access and body, known before its module is loaded. */
export type RouteShape = Record<string, Partial<Record<RestMethod, Omit<RestRoute, 'handle'>>>>

/**
 * Routes whose module is imported on their first request, so a start does not load it. `shape`
 * answers the adapter's access and body checks up front; a loaded route that disagrees with it
 * is refused rather than served with the wrong access.
 */
export function lazyRoutes(shape: RouteShape, load: () => Promise<RestRoutes>): RestRoutes {
  let loaded: Promise<RestRoutes> | undefined
  const routes: RestRoutes = {}
  for (const [name, methods] of Object.entries(shape)) {
    const entry: RestRoutes[string] = {}
    for (const [method, meta] of Object.entries(methods) as [RestMethod, Omit<RestRoute, 'handle'>][]) {
      entry[method] = {
        ...meta,
        async handle(req, ctx) {
          loaded ??= load()
          const route = (await loaded)[name]?.[method]
          if (!route || route.access !== meta.access || Boolean(route.body) !== Boolean(meta.body) || route.id !== meta.id || String(route.actions) !== String(meta.actions) || route.jsonDepth !== meta.jsonDepth || Boolean(route.agentsHeld) !== Boolean(meta.agentsHeld) || Boolean(route.agentsWithdraw) !== Boolean(meta.agentsWithdraw)) {
            throw new Error(`collab REST route ${method} ${name} does not match its declared shape`)
          }
          return route.handle(req, ctx)
        },
      }
    }
    routes[name] = entry
  }
  return routes
}
