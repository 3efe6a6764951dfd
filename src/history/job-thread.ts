// Where a history job runs: small histories in the event loop (a worker's round trip costs more
// than they take), large ones in a pooled worker thread (infra/worker-thread.ts), so other rooms
// go on meanwhile.
import { IN_LOOP_MAX_BYTES, runWorker } from '../infra/worker-thread.js'
import { jobBytes, runJob, type HistoryJob, type JobResult } from './job.js'
import type { Task } from './task.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_HISTORY_WORKER: string | undefined

/**
 * Above this many encoded bytes a job runs in a worker (measured: 20-30 ms of the loop at this size; a worker's round
 * trip 70-120 ms).
 */
const HISTORY_IN_LOOP_MAX_BYTES = IN_LOOP_MAX_BYTES / 4

const fromSources = import.meta.url.endsWith('.ts')

export async function runJobOffLoop<T extends Task>(
  job: HistoryJob<T>,
  inLoopMaxBytes = HISTORY_IN_LOOP_MAX_BYTES,
): Promise<JobResult<T>> {
  if (jobBytes(job) <= inLoopMaxBytes) return runJob(job)
  const compiled = typeof TANDEM_BUNDLED_HISTORY_WORKER === 'string' ? TANDEM_BUNDLED_HISTORY_WORKER : './job-worker.js'
  return runWorker<JobResult<T>>(
    fromSources,
    new URL('./job-worker.ts', import.meta.url),
    new URL(compiled, import.meta.url),
    job,
  )
}
