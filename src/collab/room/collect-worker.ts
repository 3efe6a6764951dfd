// Worker thread: folds a large document's parts for a snapshot (collect.ts), so its compaction
// never stalls the event loop of the rooms.
import { parentPort, workerData } from 'node:worker_threads'
import { fold, type FoldJob } from './collect.js'

const folded = fold(workerData as FoldJob)
parentPort!.postMessage(folded, [folded.buffer as ArrayBuffer])
