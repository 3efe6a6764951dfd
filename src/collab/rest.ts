// Collab REST routes (`/{name}/v1/{org}/{doc_id}?yauth=`), independent of the HTTP library: the
// adapter verifies the token, checks the document and the access, reads the body, then calls here.
import type { Capability } from '../auth/capability.js'
import type { Config } from '../infra/config.js'
import type { DocStore } from '../storage/doc-store.js'
import type { StorageHealth } from '../storage/health.js'
import type { RoomRegistry } from './registry.js'

export interface RestRequest {
  method: string
  org: string
  doc: string
  cap: Capability
  query: URLSearchParams
  accept: string
  contentType: string
  body: Uint8Array | null
}

export interface RestResponse {
  status: number
  json?: unknown
  bytes?: Uint8Array
  headers?: Record<string, string>
}

export interface RestContext {
  registry: RoomRegistry
  store: DocStore
  storageHealth: StorageHealth
  config: Config
  now: () => number
}

export interface RestRoute {
  /** the least access the token must carry */
  access: 'r' | 'rw'
  /** whether the handler reads a request body */
  body?: boolean
  handle(req: RestRequest, ctx: RestContext): Promise<RestResponse>
}

export type RestRoutes = Record<string, Partial<Record<'GET' | 'PATCH' | 'POST', RestRoute>>>
