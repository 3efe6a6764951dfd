// The database registry of one server (one per ServerDeps), shared by the API routes (which close it
// with the API listener), the demo seed, and tests that observe or force availability states. Its
// figures go to the server's Prometheus registry.
import { Counter, Gauge } from 'prom-client'
import type { ServerDeps } from '../deps.js'
import { DatabaseRegistry, registryOptions } from './registry.js'

const registries = new WeakMap<ServerDeps, DatabaseRegistry>()

export function registryOf(deps: ServerDeps): DatabaseRegistry {
  let r = registries.get(deps)
  if (!r) {
    const reg = deps.metrics.registry
    const refused =
      (reg.getSingleMetric('tandem_db_unavailable_total') as Counter<'reason'> | undefined) ??
      new Counter({ name: 'tandem_db_unavailable_total', help: 'database statements answered 503, by reason', labelNames: ['reason'] as const, registers: [reg] })
    const registry = new DatabaseRegistry({ ...registryOptions(deps.config, deps.log), onUnavailable: (reason) => refused.inc({ reason }) })
    if (!reg.getSingleMetric('tandem_db_open')) {
      new Gauge({
        name: 'tandem_db_open',
        help: 'database instances open (PGlite workers, postgres pools), by provider',
        labelNames: ['provider'] as const,
        registers: [reg],
        collect() {
          const current = registries.get(deps)
          this.reset()
          if (current) for (const [provider, n] of Object.entries(current.stats().open)) this.set({ provider }, n)
        },
      })
      new Gauge({
        name: 'tandem_db_statements',
        help: 'database statements running and waiting',
        labelNames: ['state'] as const,
        registers: [reg],
        collect() {
          const s = registries.get(deps)?.stats()
          this.set({ state: 'running' }, s?.active ?? 0)
          this.set({ state: 'waiting' }, s?.queued ?? 0)
        },
      })
    }
    r = registry
    registries.set(deps, r)
  }
  return r
}

export function forgetRegistry(deps: ServerDeps): void {
  registries.delete(deps)
}
