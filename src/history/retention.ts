// Retention: history older than the window is folded into a new base. The base is the document at
// the boundary with content deleted before it garbage-collected, so what was visible at the
// boundary keeps its text (changesets after it stay exact) and what was already gone is dropped.
// After the new history is written, the log up to the boundary may be pruned.
import * as Y from 'yjs'
import type { StoredUpdate } from '../storage/doc-store.js'
import { DocHistory } from './timeline.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** The seq to fold history into: the last entry at or before the boundary, or null when none is due. */
export function boundarySeq(h: DocHistory, now: number, retentionDays: number, foldableUpTo: number): number | null {
  const boundary = now - retentionDays * DAY_MS
  let seq = 0
  for (let i = 0; i < h.index.size; i++) {
    if (h.index.at(i) > boundary || h.index.seq(i) > foldableUpTo) break
    seq = h.index.seq(i)
  }
  return seq > h.base.seq ? seq : null
}

/**
 * A history whose base is the document at `seq`. `log(from, to)` reads log entries (inclusive);
 * everything after `seq` is replayed on top of the new base and keeps its attribution.
 */
export async function rebase(
  h: DocHistory,
  seq: number,
  log: (from: number, to?: number) => AsyncIterable<StoredUpdate>,
): Promise<DocHistory> {
  const folded = new Y.Doc() // gc on: content deleted before the boundary goes
  let at = h.base.at
  Y.transact(folded, () => {
    Y.applyUpdate(folded, h.base.state)
  })
  for await (const e of log(h.base.seq + 1, seq)) {
    Y.applyUpdate(folded, e.update)
    at = e.at
  }
  const next = new DocHistory({ seq, at, state: Y.encodeStateAsUpdate(folded) })
  folded.destroy()
  for await (const e of log(seq + 1, h.lastSeq)) next.apply(e, false)
  next.lastSeq = h.lastSeq
  for (const e of h.index.entries()) if (e.seq > seq) next.index.add(e)
  return next
}
