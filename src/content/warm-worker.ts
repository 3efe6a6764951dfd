// Worker thread: the warm documents of content jobs (warm-jobs.ts), one request at a time, in the
// order the server sends them.
import { parentPort } from 'node:worker_threads'
import { WarmDocs, type WarmRequest } from './warm-jobs.js'

const docs = new WarmDocs()
parentPort!.on('message', (req: WarmRequest) => {
  try {
    parentPort!.postMessage(docs.run(req))
  } catch (err) {
    // not a refusal: this document's copy is dropped and the call fails as an internal error
    docs.run({ id: -1, key: req.key, evict: true })
    parentPort!.postMessage({ id: req.id, failed: String((err as Error)?.stack ?? err) })
  }
})
