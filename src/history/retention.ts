// Retention: history older than the window is folded into a new base. The base is the document at
// the boundary with content deleted before it garbage-collected, so what was visible at the
// boundary keeps its text (changesets after it stay exact) and what was already gone is dropped.
// After the new history is written, the log up to the boundary may be pruned.
import * as Y from 'yjs'
import type { StoredUpdate } from '../storage/doc-store.js'
import { DocHistory } from './timeline.js'

const DAY_MS = 24 * 60 * 60 * 1000

/** Where a history is folded: its last entry older than the window, and that entry's time. */
export interface Fold {
  seq: number
  at: number
}

/**
 * The fold due for a history whose log continues after its base (`log`: from the base's next seq),
 * or null. Read off the log alone, so nothing is built to find that nothing is due. The log may
 * only be pruned up to `foldableUpTo()` (the room's snapshot), asked once an entry qualifies.
 */
export async function foldPoint(
  log: AsyncIterable<StoredUpdate>,
  now: number,
  retentionDays: number,
  foldableUpTo: () => Promise<number>,
): Promise<Fold | null> {
  const boundary = now - retentionDays * DAY_MS
  let fold: Fold | null = null
  let cap: number | undefined
  for await (const e of log) {
    if (e.at > boundary) break
    cap ??= await foldableUpTo()
    if (e.seq > cap) break
    fold = { seq: e.seq, at: e.at }
  }
  return fold
}

/**
 * A history whose base is the document at `seq`. `log` holds the entries after the old base;
 * everything after `seq` is replayed on top of the new base and keeps its attribution.
 */
export function rebase(h: DocHistory, seq: number, log: readonly StoredUpdate[]): DocHistory {
  const folded = new Y.Doc() // gc on: content deleted before the boundary goes
  let at = h.base.at
  Y.applyUpdate(folded, h.base.state)
  for (const e of log) {
    if (e.seq <= h.base.seq || e.seq > seq) continue
    Y.applyUpdate(folded, e.update)
    at = e.at
  }
  const next = new DocHistory({ seq, at, state: Y.encodeStateAsUpdate(folded) })
  folded.destroy()
  for (const e of log) if (e.seq > seq && e.seq <= h.lastSeq) next.apply(e, false)
  next.lastSeq = h.lastSeq
  for (const e of h.index.entries()) if (e.seq > seq) next.index.add(e)
  return next
}
