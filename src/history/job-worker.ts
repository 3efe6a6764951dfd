// Worker thread: runs one history job (job.ts) away from the event loop of the rooms.
import { parentPort, workerData } from 'node:worker_threads'
import { runJob, type HistoryJob } from './job.js'

parentPort!.postMessage(runJob(workerData as HistoryJob))
