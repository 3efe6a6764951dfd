// The document as it was at a past time (or log entry), cut out of the history document with a Yjs snapshot
// (the state vector and delete set of that moment, read from the attribution index), so no log
// entry has to be read or replayed.
import * as Y from 'yjs'
import type { DocHistory } from './timeline.js'

interface DeleteRange {
  clock: number
  len: number
}

export function documentAt(h: DocHistory, time: number): Uint8Array {
  return documentWhen(h, (entry) => h.index.at(entry) <= time)
}

/** The document exactly as it was once the log entry `seq` was applied (an agent's content base). */
export function documentAtSeq(h: DocHistory, seq: number): Uint8Array {
  return documentWhen(h, (entry) => h.index.seq(entry) <= seq)
}

/** The document with every change of the entries `happened` admits (the base's own: always). */
function documentWhen(h: DocHistory, happened: (entry: number) => boolean): Uint8Array {
  const sv = new Map<number, number>()
  const deleteSet = Y.createDeleteSet()
  const ds = deleteSet as unknown as { clients: Map<number, DeleteRange[]> }
  h.doc.store.clients.forEach((structs, client) => {
    let end = 0
    const deleted: DeleteRange[] = []
    const markDeleted = (clock: number, len: number) => {
      const last = deleted[deleted.length - 1]
      if (last && last.clock + last.len === clock) last.len += len
      else deleted.push({ clock, len })
    }
    for (const s of structs) {
      const stop = s.id.clock + s.length
      for (let c = s.id.clock; c < stop;) {
        const ins = h.index.insertOf(client, c)
        const del = s instanceof Y.Item && s.deleted ? h.index.deleteOf(client, c) : null
        const until = Math.min(stop, ins.until, del ? del.until : Infinity)
        if (ins.entry < 0 || happened(ins.entry)) {
          end = until
          // GC structs carry no delete entry: their content was gone when it arrived
          if (s instanceof Y.GC || (del && (del.entry < 0 || happened(del.entry)))) markDeleted(c, until - c)
        }
        c = until
      }
    }
    if (end > 0) sv.set(client, end)
    if (deleted.length) ds.clients.set(client, deleted)
  })
  const doc = Y.createDocFromSnapshot(h.doc, Y.createSnapshot(deleteSet, sv))
  const state = Y.encodeStateAsUpdate(doc)
  doc.destroy()
  return state
}
