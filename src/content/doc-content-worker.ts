// Worker thread: runs one content job (doc-content.ts) on a large document away from the event loop.
import { parentPort, workerData } from 'node:worker_threads'
import { isAppError } from '../infra/errors.js'
import { runContentJob, type ContentJob, type JobReply } from './doc-content.js'

let reply: JobReply<unknown>
try {
  reply = { ok: runContentJob(workerData as ContentJob) }
} catch (err) {
  // A refusal (a bad node type, a wrong root) goes back as itself; anything else fails the worker.
  if (!isAppError(err)) throw err
  reply = { refused: { code: err.code, message: err.message } }
}
parentPort!.postMessage(reply)
