// Starts the PGlite worker thread. From the production bundle the worker is `pglite-worker.mjs`
// next to it, from a plain tsc build `worker.js` next to this file; from the TypeScript sources
// (tests, `tsx`) it is `worker.ts`.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import { startWorker } from '../../infra/worker-thread.js'
import type { WorkerInit } from './protocol.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_PGLITE_WORKER: string | undefined

const require = createRequire(import.meta.url)
const fromSources = import.meta.url.endsWith('.ts')

export function spawnWorker(init: WorkerInit): Worker {
  const compiled = typeof TANDEM_BUNDLED_PGLITE_WORKER === 'string' ? TANDEM_BUNDLED_PGLITE_WORKER : './worker.js'
  return startWorker(fromSources, new URL('./worker.ts', import.meta.url), new URL(compiled, import.meta.url), init)
}

// lib ES2023 declares no WebAssembly; a compiled module is passed around as an opaque object.
const wasmApi = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }).WebAssembly

let wasm: Promise<object | undefined> | undefined

/** pglite.wasm compiled once per process: each worker instantiates it without compiling again. */
export function sharedWasmModule(): Promise<object | undefined> {
  wasm ??= (async () => {
    try {
      const dist = dirname(require.resolve('@electric-sql/pglite'))
      return await wasmApi.compile(await readFile(join(dist, 'pglite.wasm')))
    } catch {
      return undefined // PGlite then loads its own copy
    }
  })()
  return wasm
}
