// Folding a document's parts into one update for a snapshot or a REST read: merged as they are,
// with the garbage collected (deleted content dropped, as a Y.Doc with gc keeps it), or only what
// a state vector lacks. Small documents are folded in the event loop (a worker's round trip costs
// more than they take); large ones in a pooled worker thread (infra/worker-thread.ts), so the other
// rooms go on meanwhile (a 50 MB merge takes ~0.5 s of CPU).
import * as Y from 'yjs'
import { IN_LOOP_MAX_BYTES, runWorker } from '../../infra/worker-thread.js'

/** Set by the production bundle (scripts/bundle.ts): the worker's own entry next to the bundle. */
declare const TANDEM_BUNDLED_COLLECT_WORKER: string | undefined

const fromSources = import.meta.url.endsWith('.ts')

/** What the worker is given: the parts in the order they integrate, and whether to collect. */
export interface FoldJob {
  parts: Uint8Array[]
  collect: boolean
  /** only what this (valid) state vector lacks, merged; not with collect */
  stateVector?: Uint8Array
}

export function foldParts(job: FoldJob): Promise<Uint8Array> {
  let bytes = 0
  for (const p of job.parts) bytes += p.length
  if (bytes <= IN_LOOP_MAX_BYTES) return Promise.resolve(fold(job))
  const compiled =
    typeof TANDEM_BUNDLED_COLLECT_WORKER === 'string' ? TANDEM_BUNDLED_COLLECT_WORKER : './collect-worker.js'
  return runWorker<Uint8Array>(
    fromSources,
    new URL('./collect-worker.ts', import.meta.url),
    new URL(compiled, import.meta.url),
    job,
  )
}

export function fold({ parts, collect, stateVector }: FoldJob): Uint8Array {
  if (stateVector) {
    const diffs = parts.map((p) => Y.diffUpdate(p, stateVector))
    return diffs.length === 1 ? diffs[0]! : Y.mergeUpdates(diffs)
  }
  if (!collect) return parts.length === 1 ? parts[0]! : Y.mergeUpdates(parts)
  const doc = new Y.Doc()
  for (const p of parts) Y.applyUpdate(doc, p)
  const collected = Y.encodeStateAsUpdate(doc)
  doc.destroy()
  return collected
}
