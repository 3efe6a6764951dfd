// Worker thread: folds a large document's parts for a snapshot or a read (collect.ts), so a
// compaction never stalls the event loop of the rooms. Pooled: it serves job after job.
import { serveJobs } from '../../infra/worker-jobs.js'
import { fold, type FoldJob } from './collect.js'

serveJobs(
  (job: FoldJob) => fold(job),
  (folded) => [folded.buffer as ArrayBuffer],
)
