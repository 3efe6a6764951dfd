// The control plane of one server: its store, the tool catalog and the site sweeper. One per
// ServerDeps, shared by the API listener, the admin endpoint and the demo seed, so per-key locks
// and the sweeper are never duplicated.
import type { ServerDeps } from './deps.js'
import type { ConnectorFactory } from './sources/connector.js'
import { defaultConnectorFactory } from './sources/factory.js'
import { SiteSweeper } from './sources/sweeper.js'
import { openControlStore } from './control/open.js'
import type { HookedControlStore } from './control/hooked-store.js'
import { watchAccessChanges } from './control/token-revocations.js'
import { loadToolCatalog, type ToolCatalog } from './control/tool-catalog.js'

export interface ControlPlane {
  store: HookedControlStore
  catalog: ToolCatalog
  sweeper: SiteSweeper
}

const planes = new WeakMap<ServerDeps, Promise<ControlPlane>>()

export function controlPlane(deps: ServerDeps, connectors: ConnectorFactory = defaultConnectorFactory): Promise<ControlPlane> {
  let plane = planes.get(deps)
  if (!plane) {
    plane = (async () => {
      const store = openControlStore(deps.config, deps)
      watchAccessChanges(store, deps.now)
      const catalog = await loadToolCatalog(deps.config.toolCatalogFile).catch((err: Error) => {
        throw new Error(`tool-catalog: cannot load ${deps.config.toolCatalogFile}: ${err.message}`)
      })
      const sweeper = new SiteSweeper(store, { stepDelayMs: deps.config.siteSweepDelayMs, now: deps.now, log: deps.log, connectors })
      return { store, catalog, sweeper }
    })()
    planes.set(deps, plane)
  }
  return plane
}
