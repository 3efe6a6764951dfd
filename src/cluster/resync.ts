// What a room that fell behind reads back from storage: every committed update after the seqs it
// has applied. Reads the log from the last applied seq on, so one query tells both what is new and
// that nothing it needs was pruned; when the log below was pruned (a snapshot covers it), it falls
// back to the snapshot plus the log. Applying any of it twice is harmless in Yjs.
import type { DocStore } from '../storage/doc-store.js'

export interface Missed {
  /** Yjs updates to apply, in order (a snapshot state first when the log was pruned) */
  updates: Uint8Array[]
  /** every seq up to this is included: the document's head when read */
  head: number
}

export async function readMissed(store: DocStore, docId: string, fromSeq: number): Promise<Missed> {
  const anchor = Math.max(1, fromSeq - 1)
  const updates: Uint8Array[] = []
  let head = fromSeq - 1
  let first = true
  for await (const u of store.readLog(docId, anchor)) {
    if (first) {
      first = false
      // The entry just before fromSeq (or seq 1) must still be there, else prune took some.
      if (u.seq !== anchor) return readAll(store, docId)
      if (u.seq < fromSeq) continue
    }
    updates.push(u.update)
    head = u.seq
  }
  if (first) return readAll(store, docId) // nothing at all from the anchor on: new, or pruned
  return { updates, head }
}

async function readAll(store: DocStore, docId: string): Promise<Missed> {
  const state = await store.load(docId)
  const updates = state.updates.map((u) => u.update)
  if (state.snapshot) updates.unshift(state.snapshot.state)
  return { updates, head: state.lastSeq }
}
