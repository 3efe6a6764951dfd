// An in-memory log of attributed edits for the history unit tests: each user edits a Y.Doc of
// their own, synced from the shared state first, and every change becomes one log entry.
import * as Y from 'yjs'
import type { StoredUpdate } from '../../src/storage/doc-store.js'
import { DocHistory } from '../../src/history/timeline.js'

export class EditLog {
  readonly entries: StoredUpdate[] = []
  readonly shared = new Y.Doc()
  private docs = new Map<string, Y.Doc>()

  doc(user: string): Y.Doc {
    let d = this.docs.get(user)
    if (!d) this.docs.set(user, (d = new Y.Doc()))
    Y.applyUpdate(d, Y.encodeStateAsUpdate(this.shared, Y.encodeStateVector(d)))
    return d
  }

  edit(user: string, at: number, change: (doc: Y.Doc) => void): void {
    const d = this.doc(user)
    const updates: Uint8Array[] = []
    const on = (u: Uint8Array) => updates.push(u)
    d.on('update', on)
    d.transact(() => change(d))
    d.off('update', on)
    for (const update of updates) this.append(user, at, update)
  }

  append(user: string, at: number, update: Uint8Array): void {
    Y.applyUpdate(this.shared, update)
    this.entries.push({ seq: this.entries.length + 1, user, at, update })
  }

  history(upTo = Infinity): DocHistory {
    const h = new DocHistory()
    for (const e of this.entries) if (e.seq <= upTo) h.apply(e)
    return h
  }

  async *read(from = 1, to = Number.MAX_SAFE_INTEGER): AsyncIterable<StoredUpdate> {
    for (const e of this.entries) if (e.seq >= from && e.seq <= to) yield e
  }
}
