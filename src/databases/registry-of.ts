// The database registry of one server (one per ServerDeps), shared by the API routes (which close it
// with the API listener), the demo seed, and tests that observe or force availability states.
import type { ServerDeps } from '../deps.js'
import { DatabaseRegistry, registryOptions } from './registry.js'

const registries = new WeakMap<ServerDeps, DatabaseRegistry>()

export function registryOf(deps: ServerDeps): DatabaseRegistry {
  let r = registries.get(deps)
  if (!r) {
    r = new DatabaseRegistry(registryOptions(deps.config, deps.log))
    registries.set(deps, r)
  }
  return r
}

export function forgetRegistry(deps: ServerDeps): void {
  registries.delete(deps)
}
