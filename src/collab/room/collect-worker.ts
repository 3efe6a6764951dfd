// Worker thread: collects a document's garbage (a Y.Doc with gc built from the update, encoded
// again), so a large document's compaction never stalls the event loop of the rooms.
import { parentPort, workerData } from 'node:worker_threads'
import * as Y from 'yjs'

const doc = new Y.Doc()
Y.applyUpdate(doc, workerData as Uint8Array)
const collected = Y.encodeStateAsUpdate(doc)
parentPort!.postMessage(collected, [collected.buffer as ArrayBuffer])
