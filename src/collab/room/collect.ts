// A document with its garbage collected: deleted content dropped, as a Y.Doc with gc keeps it.
// Small documents are collected in the event loop (a worker costs more to start than they take);
// large ones in a worker thread of their own, so the other rooms go on meanwhile.
import * as Y from 'yjs'
import { runWorker } from '../../infra/worker-thread.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_COLLECT_WORKER: string | undefined

/** Above this many encoded bytes a document is collected in a worker (measured: ~5 ms in the loop below it). */
const IN_LOOP_MAX_BYTES = 256 * 1024

const fromSources = import.meta.url.endsWith('.ts')

export function collectGarbage(update: Uint8Array): Promise<Uint8Array> {
  if (update.length <= IN_LOOP_MAX_BYTES) {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, update)
    const collected = Y.encodeStateAsUpdate(doc)
    doc.destroy()
    return Promise.resolve(collected)
  }
  const compiled = typeof TANDEM_BUNDLED_COLLECT_WORKER === 'string' ? TANDEM_BUNDLED_COLLECT_WORKER : './collect-worker.js'
  return runWorker<Uint8Array>(fromSources, new URL('./collect-worker.ts', import.meta.url), new URL(compiled, import.meta.url), update)
}
