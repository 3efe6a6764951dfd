// The control plane of one server: its store (opened by the backend), the tool catalog and the
// site sweeper. Built once by createServer and handed to the API listener, the admin endpoint and
// the demo seed, so per-key locks and the sweeper are never duplicated.
import type { ControlPlane } from '../api/deps.js'
import type { ConnectorFactory } from '../sources/connector.js'
import { defaultConnectorFactory } from '../sources/factory.js'
import { SiteSweeper } from '../sources/sweeper.js'
import type { HookedControlStore } from '../control/hooked-store.js'
import { watchAccessChanges } from '../control/token-revocations.js'
import { loadToolCatalog } from '../control/tool-catalog.js'
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'

export interface ControlPlaneParts {
  config: Pick<Config, 'toolCatalogFile' | 'siteSweepDelayMs'>
  log: Logger
  now: () => number
  connectors?: ConnectorFactory
}

/** The sweeper is created stopped: the caller starts it and registers its close. */
export async function openControlPlane(store: HookedControlStore, p: ControlPlaneParts): Promise<ControlPlane> {
  watchAccessChanges(store, p.now)
  const catalog = await loadToolCatalog(p.config.toolCatalogFile).catch((err: Error) => {
    throw new Error(`tool-catalog: cannot load ${p.config.toolCatalogFile}: ${err.message}`)
  })
  const sweeper = new SiteSweeper(store, {
    stepDelayMs: p.config.siteSweepDelayMs,
    now: p.now,
    log: p.log,
    connectors: p.connectors ?? defaultConnectorFactory,
  })
  return { store, catalog, sweeper }
}
