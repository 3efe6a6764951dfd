// What route modules receive: the server's shared deps, the control plane, and a place to register
// cleanup that must run when the API listener closes (e.g. a database registry).
import type { ApiDeps, ControlPlane } from './deps.js'

export interface ApiContext {
  deps: ApiDeps
  control: ControlPlane
  /** Run in reverse order by the listener's close(). */
  onClose(fn: () => Promise<void>): void
}
