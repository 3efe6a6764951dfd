// What the collab listener needs from the server that starts it, and what it gives back: the same
// for both transports (uWebSockets.js in ../uws/, `ws` on Node's http server in ../ws/).
import type { KeyRing } from '../../auth/keys/ring.js'
import type { DeletedDocs } from '../../auth/deleted-docs.js'
import type { RevocationList } from '../../auth/revocation.js'
import type { Config } from '../../infra/config.js'
import type { Logger } from '../../infra/log.js'
import type { Metrics } from '../../infra/metrics.js'
import type { CloseCode } from '@tandem/protocol/close-codes'
import type { DocStore } from '../../storage/doc-store.js'
import type { StorageHealth } from '../../storage/health.js'
import type { ExpiryClock } from '../expiry-clock.js'
import type { RoomRegistry } from '../registry.js'
import type { SessionDeps } from '../session/session-admission.js'
import type { RestContext, RestRoutes } from '../rest/route-model.js'
import type { Transport } from '../transport.js'
import type { CollabThrottle } from './throttle.js'

export interface CollabListenerDeps {
  config: Config
  keys: KeyRing
  /** The token deny-list, checked on upgrade, on open sockets and on every collab REST call. */
  revocations: RevocationList
  /** Deleted documents: refused on upgrade (404) and on every collab REST call (404 doc_deleted). */
  deleted: DeletedDocs
  registry: RoomRegistry
  store: DocStore
  /** failing while document writes fail: /readyz answers 503, REST writes answer 503 */
  storageHealth: StorageHealth
  /** cluster mode: the bus is connected to Redis (/readyz answers 503 otherwise) */
  clusterReady?: () => boolean
  metrics: Metrics
  log: Logger
  now: () => number
  restRoutes: RestRoutes
  /** the agents' policy: an agent's socket reads only where its workspace requires approval (SessionDeps) */
  agents?: SessionDeps['agents']
  /** rollback `{version}` reads a named version's state through this (src/versions/) */
  versionState: RestContext['versionState']
}

/** What the listener's routes share: the server's parts plus the listener's own per-address limits and expiry clock. */
export type ListenerContext = CollabListenerDeps & {
  /** the WebSocket and REST paths share the per-address counts */
  throttle: CollabThrottle
  expiry: ExpiryClock
}

/**
 * The collab listener's app before it listens: its transport (which the room registry needs) and
 * its sockets exist first, so the registry is built on them and the routes on the registry.
 */
export interface CollabApp {
  /** which transport carries it: `uws` (uWebSockets.js) or `ws` (the ws package on node:http) */
  kind: 'uws' | 'ws'
  transport: Transport
  /** Mounts the routes and binds the port. */
  listen(d: CollabListenerDeps): Promise<CollabListener>
  /** Closes every remaining socket (after the registry's shutdown flushed and closed its rooms). */
  closeAll(code: CloseCode, reason: string): void
}

export interface CollabListener {
  port: number
  /** Stops accepting connections and answers /readyz 503; sockets are closed by the registry's shutdown. */
  stopListening(): void
}
