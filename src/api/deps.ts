// What the /api/v0 listener takes from the process it runs in: built once by the composition
// (src/compose/server.ts), after the collab listener is up (its port is in publicUrls). Declared
// here, by its user, so nothing below the composition imports it.
import type { KeyRing } from '../auth/keys/ring.js'
import type { DocService } from '../collab/doc-service.js'
import type { DatabaseRegistry } from '../database-assets/registry.js'
import type { Config } from '../infra/config.js'
import type { RootDb } from '../infra/data-dir.js'
import type { Logger } from '../infra/log.js'
import type { Metrics } from '../infra/metrics.js'
import type { AssetLifecycle } from '../lifecycle/asset-lifecycle.js'
import type { PgPool } from '../pg/pool.js'
import type { Search } from '../search/service.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import type { ToolCatalog } from '../control/tool-catalog.js'
import type { SiteSweeper } from '../sources/sweeper.js'
import type { VersionStore } from '../versions/store.js'
import type { RestRoutes } from '../collab/rest/route-model.js'

/** The control plane of one server: its store, the tool catalog and the site sweeper, each built once. */
export interface ControlPlane {
  store: HookedControlStore
  catalog: ToolCatalog
  sweeper: SiteSweeper
}

export interface ApiDeps {
  config: Config
  log: Logger
  metrics: Metrics
  /**
   * The one LevelDB of the data dir; each part takes its own sublevel (docs, control, history ...). Not opened with
   * --postgres-url.
   */
  db?: RootDb | undefined
  /** The process's one pool on --postgres-url, when set: control plane and signing keys live there. */
  pg?: PgPool | undefined
  keys: KeyRing
  docs: DocService
  /** named versions of documents (a hard delete erases a document's with `versions.erase(docId)`) */
  versions: VersionStore
  control: ControlPlane
  /** deletes, restores and hard deletes of assets, with what they do to live rooms */
  lifecycle: AssetLifecycle
  /** database assets (PGlite workers, postgres pools) */
  databases: DatabaseRegistry
  /** full-text search of a workspace's documents, permission-filtered (src/search/) */
  search: Search
  /** ms clock, injectable for tests */
  now: () => number
  /** REST and WebSocket base URLs put in minted tokens: the configured public URLs, else the collab listener's own. */
  publicUrls: () => { restUrl: string; wsUrl: string }
  /** the collab listener's REST routes, described in the API's OpenAPI document */
  restRoutes: RestRoutes
}
