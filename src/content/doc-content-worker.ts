// Worker thread: runs content jobs (doc-content.ts) on large documents away from the event loop.
import { isAppError } from '../infra/errors.js'
import { serveJobs } from '../infra/worker-jobs.js'
import { runContentJob, type ContentJob, type JobReply } from './doc-content.js'

serveJobs((job: ContentJob): JobReply<unknown> => {
  try {
    return { ok: runContentJob(job) }
  } catch (err) {
    // A refusal (a bad node type, a wrong root) goes back as itself; anything else fails the worker.
    if (!isAppError(err)) throw err
    return { refused: { code: err.code, message: err.message } }
  }
})
