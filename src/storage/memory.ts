// In-memory twin of the LevelDB store: same contract, used by tests and memory-only runs.
import {
  numberWrites,
  type AppendedSeqs,
  type AppendWrite,
  type DocState,
  type DocStore,
  type Snapshot,
  type StoredUpdate,
  type StoreMark,
  type UpdateEntry,
} from './doc-store.js'

interface MemDoc {
  log: StoredUpdate[]
  snapshot: Snapshot | null
  lastSeq: number
}

export class MemoryDocStore implements DocStore {
  private docs = new Map<string, MemDoc>()
  private meta = new Map<string, Uint8Array>()
  private marks = new Map<string, string>()

  private get(docId: string): MemDoc {
    let d = this.docs.get(docId)
    if (!d) this.docs.set(docId, (d = { log: [], snapshot: null, lastSeq: 0 }))
    return d
  }

  async load(docId: string): Promise<DocState> {
    const d = this.docs.get(docId)
    if (!d) return { snapshot: null, updates: [], lastSeq: 0 }
    const after = d.snapshot?.seq ?? 0
    return { snapshot: d.snapshot, updates: d.log.filter((u) => u.seq > after), lastSeq: d.lastSeq }
  }

  append(docId: string, firstSeq: number, entries: UpdateEntry[]): Promise<void> {
    return this.appendMany([{ docId, firstSeq, entries }]).then(() => undefined)
  }

  async appendMany(writes: AppendWrite[]): Promise<AppendedSeqs[]> {
    // Check every write before applying any, so a bad one leaves the store untouched (atomic).
    const seqs = await numberWrites(writes, (docId) => this.docs.get(docId)?.lastSeq ?? 0)
    const last = new Map<string, number>()
    for (const { docId, firstSeq, lastSeq } of seqs) {
      const prev = last.get(docId) ?? this.docs.get(docId)?.lastSeq ?? 0
      if (firstSeq !== prev + 1) throw new Error(`append out of order: ${firstSeq} after ${prev} (${docId})`)
      last.set(docId, lastSeq)
    }
    writes.forEach(({ docId, entries }, w) => {
      const d = this.get(docId)
      const first = seqs[w]!.firstSeq
      entries.forEach((e, i) => {
        const u: StoredUpdate = { ...e, update: e.update.slice(), seq: first + i }
        if (e.attrs) u.attrs = { ...e.attrs }
        d.log.push(u)
      })
      d.lastSeq = first + entries.length - 1
    })
    for (const w of writes) for (const m of w.marks ?? []) this.marks.set(m.key, m.value)
    return seqs
  }

  async writeSnapshot(docId: string, snapshot: Snapshot): Promise<void> {
    this.get(docId).snapshot = { ...snapshot, state: snapshot.state.slice() }
  }

  async *readLog(docId: string, from = 1, to = Number.MAX_SAFE_INTEGER): AsyncIterable<StoredUpdate> {
    for (const u of this.docs.get(docId)?.log ?? []) if (u.seq >= from && u.seq <= to) yield u
  }

  async prune(docId: string, uptoSeq: number): Promise<void> {
    const d = this.docs.get(docId)
    if (!d) return
    if ((d.snapshot?.seq ?? 0) < uptoSeq) throw new Error('prune past the snapshot would lose updates')
    d.log = d.log.filter((u) => u.seq > uptoSeq)
  }

  async readMeta(docId: string, name: string): Promise<Uint8Array | null> {
    return this.meta.get(`${docId}!${name}`)?.slice() ?? null
  }

  async writeMeta(docId: string, name: string, value: Uint8Array): Promise<void> {
    this.meta.set(`${docId}!${name}`, value.slice())
  }

  async claimMeta(docId: string, name: string, value: Uint8Array): Promise<Uint8Array> {
    const key = `${docId}!${name}`
    if (!this.meta.has(key)) this.meta.set(key, value.slice())
    return this.meta.get(key)!.slice()
  }

  async *readMarks(prefix: string): AsyncIterable<StoreMark> {
    for (const key of [...this.marks.keys()].sort())
      if (key.startsWith(prefix)) yield { key, value: this.marks.get(key)! }
  }

  async deleteMarks(keys: string[]): Promise<void> {
    for (const k of keys) this.marks.delete(k)
  }

  async exists(docId: string): Promise<boolean> {
    return this.docs.has(docId)
  }

  async *listDocs(prefix = ''): AsyncIterable<string> {
    for (const id of [...this.docs.keys()].sort()) if (id.startsWith(prefix)) yield id
  }

  async eraseDocument(docId: string): Promise<void> {
    this.docs.delete(docId)
    for (const k of [...this.meta.keys()]) if (k.startsWith(`${docId}!`)) this.meta.delete(k)
  }

  async close(): Promise<void> {}
}
