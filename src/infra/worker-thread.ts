// Starts a worker thread from an entry module: its compiled file when the server runs built (the
// production bundle or tsc), its TypeScript source under tests and `tsx`, loaded through tsx's
// ESM hooks registered inside the new thread (hooks of the parent thread do not reach workers).
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'

const require = createRequire(import.meta.url)

/**
 * Above this many encoded bytes a document is merged or built in a worker thread rather than in
 * the event loop (merging: ~5 ms in the loop below it; building a Y.Doc: ~60 ms). History jobs,
 * which build a gc-off document with every deleted item, use a quarter of it (job-thread.ts).
 */
export const IN_LOOP_MAX_BYTES = 256 * 1024

/** `source`: the entry's .ts URL; `compiled`: where the built entry sits (used unless the caller runs from sources). */
/** A worker that answers once: its first message is the result, then it is terminated. */
export function runWorker<T>(fromSources: boolean, source: URL, compiled: URL, workerData: unknown): Promise<T> {
  const worker = startWorker(fromSources, source, compiled, workerData)
  return new Promise<T>((resolve, reject) => {
    worker.once('message', (result: T) => {
      resolve(result)
      void worker.terminate()
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`worker ${source.pathname} exited with ${code}`)))
  })
}

export function startWorker(fromSources: boolean, source: URL, compiled: URL, workerData: unknown): Worker {
  if (!fromSources) return new Worker(compiled, { workerData })
  const tsx = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}) })`
  return new Worker(boot, { eval: true, workerData })
}
