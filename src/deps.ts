// The shared parts one server process hands to each listener. Built once in server.ts.
import type { Level } from 'level'
import type { KeyRing } from './auth/keys/ring.js'
import type { DocService } from './collab/doc-service.js'
import type { Config } from './infra/config.js'
import type { Logger } from './infra/log.js'
import type { Metrics } from './infra/metrics.js'
import type { PgPool } from './pg/pool.js'
import type { VersionStore } from './versions/store.js'

export type RootDb = Level<string, unknown>

export interface ServerDeps {
  config: Config
  log: Logger
  metrics: Metrics
  /** The one LevelDB of the data dir; each part takes its own sublevel (docs, control, history ...). Not opened with --postgres-url. */
  db?: RootDb | undefined
  /** The process's one pool on --postgres-url, when set: control plane and signing keys live there. */
  pg?: PgPool | undefined
  keys: KeyRing
  docs: DocService
  /** named versions of documents (a hard delete erases a document's with `versions.erase(docId)`) */
  versions: VersionStore
  /** ms clock, injectable for tests */
  now: () => number
  /** REST and WebSocket base URLs put in minted tokens: the configured public URLs, else the collab listener's own. */
  publicUrls: () => { restUrl: string; wsUrl: string }
}
