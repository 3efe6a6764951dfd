// Worker thread: reads a large document's content (doc-content.ts) away from the event loop.
import { parentPort, workerData } from 'node:worker_threads'
import { readDocContent } from './doc-content.js'
import type { TextAnchor } from './doc-text.js'

const { state, anchors } = workerData as { state: Uint8Array; anchors: TextAnchor[] }
parentPort!.postMessage(readDocContent(state, anchors))
