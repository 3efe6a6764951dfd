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

/** How long a pooled worker waits for its next job before it is stopped. */
const POOL_IDLE_MS = 30_000

interface Pooled {
  worker: Worker
  busy: boolean
  idle: NodeJS.Timeout | null
}

/** Idle and busy workers per entry: a job reuses an idle one instead of paying a thread's start. */
const pools = new Map<string, Pooled[]>()

function retire(key: string, p: Pooled): void {
  const pool = pools.get(key)
  const i = pool?.indexOf(p) ?? -1
  if (i >= 0) pool!.splice(i, 1)
  if (p.idle) clearTimeout(p.idle)
  void p.worker.terminate()
}

/**
 * Runs one job in a worker of the entry's pool (the entry serves jobs with serveJobs,
 * worker-jobs.ts): a thread's start (loading its bundle chunk, 70-120 ms of CPU for the content
 * entry) is paid once per idle period, not per job. A worker runs one job at a time, so a job
 * finding every worker busy starts another; the callers bound how many run at once (DocBuilds).
 * A job that throws in the worker, or a worker that dies, rejects that job and the worker is
 * dropped: the next job starts a fresh one. Idle workers are unref'd and stop after 30 s.
 * `source`: the entry's .ts URL; `compiled`: where the built entry sits (used unless the caller
 * runs from sources).
 */
export function runWorker<T>(fromSources: boolean, source: URL, compiled: URL, job: unknown): Promise<T> {
  const key = fromSources ? source.href : compiled.href
  let pool = pools.get(key)
  if (!pool) pools.set(key, (pool = []))
  let p = pool.find((w) => !w.busy)
  if (!p) {
    const fresh: Pooled = { worker: startWorker(fromSources, source, compiled, null), busy: false, idle: null }
    // an idle worker that fails (it should not) is dropped, never an unheard 'error' event
    fresh.worker.on('error', () => retire(key, fresh))
    fresh.worker.on('exit', () => retire(key, fresh))
    pool.push((p = fresh))
  }
  const taken = p
  taken.busy = true
  if (taken.idle) clearTimeout(taken.idle)
  taken.idle = null
  taken.worker.ref()
  return new Promise<T>((resolve, reject) => {
    const { worker } = taken
    const settle = () => {
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
    }
    const onMessage = (result: T) => {
      settle()
      taken.busy = false
      worker.unref()
      taken.idle = setTimeout(() => retire(key, taken), POOL_IDLE_MS)
      taken.idle.unref()
      resolve(result)
    }
    const onError = (err: unknown) => {
      settle()
      retire(key, taken)
      reject(err)
    }
    const onExit = (code: number) => {
      settle()
      retire(key, taken)
      reject(new Error(`worker ${source.pathname} exited with ${code}`))
    }
    worker.on('message', onMessage)
    worker.once('error', onError)
    worker.once('exit', onExit)
    worker.postMessage(job)
  })
}

/** The thread ids of the pools' workers now, idle and busy. */
export function pooledThreads(): number[] {
  return [...pools.values()].flatMap((pool) => pool.map((p) => p.worker.threadId))
}

export function startWorker(fromSources: boolean, source: URL, compiled: URL, workerData: unknown): Worker {
  if (!fromSources) return new Worker(compiled, { workerData })
  const tsx = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}) })`
  return new Worker(boot, { eval: true, workerData })
}
