// The database registry of one server (one per ServerDeps), created with the API routes and closed
// with the API listener. Tests reach it here to observe and force availability states.
import type { ServerDeps } from '../../../deps.js'
import { DatabaseRegistry, registryOptions } from '../../../databases/registry.js'

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
