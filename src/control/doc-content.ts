// What the API shows of a document (its text, and the text under each comment anchor), read from
// the document's encoded state. Building a Y.Doc costs about 250 ms per MB of a document edited
// by several hands, all of it on one thread: documents over IN_LOOP_MAX_BYTES are read in a worker
// thread (doc-content-worker.ts) so the rooms of the process go on meanwhile.
import * as Y from 'yjs'
import { runWorker } from '../infra/worker-thread.js'
import { anchoredText, renderDocText, type TextAnchor } from './doc-text.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_CONTENT_WORKER: string | undefined

/** Above this many encoded bytes a document is read in a worker (~60 ms of the loop below it). */
const IN_LOOP_MAX_BYTES = 256 * 1024

const fromSources = import.meta.url.endsWith('.ts')

export interface DocContent {
  text: string
  /** per anchor asked for, the text it spans now (null: it no longer resolves) */
  anchored: (string | null)[]
}

/** Reads the content in this thread. */
export function readDocContent(state: Uint8Array, anchors: readonly TextAnchor[]): DocContent {
  const doc = new Y.Doc()
  try {
    Y.applyUpdate(doc, state)
    return { text: renderDocText(doc), anchored: anchors.map((a) => anchoredText(doc, a)) }
  } finally {
    doc.destroy()
  }
}

/** Reads the content, off the event loop when the document is large. */
export function readDocContentOffLoop(state: Uint8Array, anchors: readonly TextAnchor[]): Promise<DocContent> {
  if (state.length <= IN_LOOP_MAX_BYTES) return Promise.resolve(readDocContent(state, anchors))
  const compiled = typeof TANDEM_BUNDLED_CONTENT_WORKER === 'string' ? TANDEM_BUNDLED_CONTENT_WORKER : './doc-content-worker.js'
  return runWorker<DocContent>(fromSources, new URL('./doc-content-worker.ts', import.meta.url), new URL(compiled, import.meta.url), { state, anchors })
}
