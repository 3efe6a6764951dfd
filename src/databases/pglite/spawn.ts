// Starts the PGlite worker thread. From the production bundle the worker is `pglite-worker.mjs`
// next to it, from a plain tsc build `worker.js` next to this file; from the TypeScript sources
// (tests, `tsx`) it is `worker.ts`, loaded through tsx's ESM hooks registered inside the new thread
// (hooks of the parent thread do not reach workers).
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { WorkerInit } from './protocol.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_PGLITE_WORKER: string | undefined

const require = createRequire(import.meta.url)
const fromSources = import.meta.url.endsWith('.ts')

export function spawnWorker(init: WorkerInit): Worker {
  const compiled = typeof TANDEM_BUNDLED_PGLITE_WORKER === 'string' ? TANDEM_BUNDLED_PGLITE_WORKER : './worker.js'
  const entry = new URL(fromSources ? './worker.ts' : compiled, import.meta.url)
  if (!fromSources) return new Worker(entry, { workerData: init })
  const tsx = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(boot, { eval: true, workerData: init })
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
