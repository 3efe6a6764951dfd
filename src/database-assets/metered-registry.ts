// The database registry of one server, built by createServer once the collab listener is up (or
// on a hard delete's first use before that), closed with the server. Its figures go to the
// server's Prometheus registry.
import { Counter, Gauge, type Registry } from 'prom-client'
import type { Config } from '../infra/config.js'
import type { Logger } from '../infra/log.js'
import { DatabaseRegistry, registryOptions } from './registry.js'

export function createDatabaseRegistry(config: Config, log: Logger, metrics: { registry: Registry }): DatabaseRegistry {
  const reg = metrics.registry
  const refused = new Counter({
    name: 'tandem_db_unavailable_total',
    help: 'database statements answered 503, by reason',
    labelNames: ['reason'] as const,
    registers: [reg],
  })
  const registry = new DatabaseRegistry({
    ...registryOptions(config, log),
    onUnavailable: (reason) => refused.inc({ reason }),
  })
  new Gauge({
    name: 'tandem_db_open',
    help: 'database instances open (PGlite workers, postgres pools), by provider',
    labelNames: ['provider'] as const,
    registers: [reg],
    collect() {
      this.reset()
      for (const [provider, n] of Object.entries(registry.stats().open)) this.set({ provider }, n)
    },
  })
  new Gauge({
    name: 'tandem_db_statements',
    help: 'database statements running and waiting',
    labelNames: ['state'] as const,
    registers: [reg],
    collect() {
      const s = registry.stats()
      this.set({ state: 'running' }, s.active)
      this.set({ state: 'waiting' }, s.queued)
    },
  })
  return registry
}
