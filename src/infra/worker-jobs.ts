// The worker side of runWorker's pools (worker-thread.ts): an entry serves one job per message,
// answering each with its result, for as long as the pool keeps it. A job that throws is left
// uncaught: the worker dies, its caller's job is rejected with the error, and the pool starts a
// fresh worker for the next job (a half-run job never leaves state behind for another).
import { parentPort } from 'node:worker_threads'

export function serveJobs<J, R>(run: (job: J) => R, transferOf?: (result: R) => ArrayBuffer[]): void {
  parentPort!.on('message', (job: J) => {
    const result = run(job)
    parentPort!.postMessage(result, transferOf?.(result) ?? [])
  })
}
