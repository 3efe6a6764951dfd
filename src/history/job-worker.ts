// Worker thread: runs history jobs (job.ts) away from the event loop of the rooms, one at a time.
import { serveJobs } from '../infra/worker-jobs.js'
import { runJob, type HistoryJob } from './job.js'

serveJobs((job: HistoryJob) => runJob(job))
