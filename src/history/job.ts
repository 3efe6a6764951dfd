// One history job: the document's history built from its record (or base) and the log after it,
// folded past the retention window when due, one task answered, encoded again when a checkpoint
// is due, and destroyed. Pure and synchronous, so it runs as well in a worker thread (job-worker.ts).
import { unpackLog } from './log-pack.js'
import { rebase } from './retention.js'
import { answer, taskBytes, type AnswerOf, type Task } from './task.js'
import { DocHistory, type Base } from './timeline.js'

export interface HistoryJob<T extends Task = Task> {
  /** the stored history record, or the base a history without one starts from (null: empty) */
  from: { record: Uint8Array } | { base: Base | null }
  /** log entries after the record or base, packed (log-pack.ts) */
  log: Uint8Array
  /** retention: the seq to fold the history up to before the task (`log` then starts after the old base) */
  fold: number | null
  /** whether to answer the history encoded, to be written back (a checkpoint, or after a fold) */
  encode: boolean
  task: T
}

export interface JobResult<T extends Task = Task> {
  answer: AnswerOf<T>
  record: Uint8Array | null
  /** the history's last seq */
  lastSeq: number
}

export function runJob<T extends Task>(job: HistoryJob<T>): JobResult<T> {
  const log = unpackLog(job.log)
  let h = 'record' in job.from ? DocHistory.decode(job.from.record) : new DocHistory(job.from.base ?? undefined)
  try {
    for (const e of log) h.apply(e)
    if (job.fold !== null) {
      const folded = rebase(h, job.fold, log)
      h.destroy()
      h = folded
    }
    return { answer: answer(h, job.task), record: job.encode ? h.encode() : null, lastSeq: h.lastSeq }
  } finally {
    h.destroy()
  }
}

/**
 * Encoded bytes the job's Y.Docs are built from, for the memory budget: the history (its record or
 * base, and the log), the folded one beside it during a fold, and what the task builds.
 */
export function jobBytes(job: HistoryJob): number {
  const history = jobInputBytes(job)
  return history + (job.fold !== null ? history : 0) + taskBytes(job.task, history)
}

/** What a job holds before it runs: its record or base, and the packed log. */
export function jobInputBytes(job: HistoryJob): number {
  return ('record' in job.from ? job.from.record.length : (job.from.base?.state.length ?? 0)) + job.log.length
}
