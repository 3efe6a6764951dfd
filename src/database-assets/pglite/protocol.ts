// Messages between the main thread and a PGlite worker. One worker runs one data directory.
import type { SqlErrorFields } from '../db-error.js'

export interface WorkerInit {
  dataDir: string
  /** pglite.wasm compiled once in the main thread (a WebAssembly.Module) and shared with every worker */
  wasmModule?: object
  /** postgresql.conf lines, e.g. shared_buffers */
  conf: string[]
}

export type ToWorker =
  | { type: 'query'; id: number; sql: string; params: (string | null)[] }
  | { type: 'script'; id: number; sql: string }
  | { type: 'close' }

export type FromWorker =
  | { type: 'ready' }
  | { type: 'open-failed'; message: string }
  | { type: 'result'; id: number; rows: unknown[][]; rowCount: number | null }
  | { type: 'error'; id: number; error: SqlErrorFields }
  | { type: 'closed' }
