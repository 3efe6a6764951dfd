// LevelDB document store. Appends are one atomic batch; callers (rooms) serialise their own
// writes, so different documents never wait on one another. With `sync`, every append and
// snapshot is fsynced before it resolves (survives power loss and kernel crashes); without, it is
// in the OS page cache when it resolves (survives the process being killed, not the host).
import type { RootDb } from '../../infra/data-dir.js'
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
} from '../doc-store.js'
import { LogBatch } from './log-batch.js'
import {
  MARKS_SUBLEVEL,
  SUBLEVEL,
  decodeSnapshotValue,
  decodeUpdateValue,
  docIdOfKey,
  encodeSnapshotValue,
  encodeUpdateValues,
  metaKey,
  metaPrefix,
  prefixEnd,
  seqOfUpdateKey,
  snapshotKey,
  updateKey,
  updatePrefix,
} from './keys.js'

type DocsDb = ReturnType<typeof openSublevel>
type MarksDb = ReturnType<typeof openMarks>

function openSublevel(root: RootDb) {
  return root.sublevel<string, Uint8Array>(SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'view' })
}

function openMarks(root: RootDb) {
  return root.sublevel<string, string>(MARKS_SUBLEVEL, { keyEncoding: 'utf8', valueEncoding: 'utf8' })
}

export interface LevelDocStoreOptions {
  /** fsync each write cycle (LevelDB `sync: true`). */
  sync?: boolean
}

export class LevelDocStore implements DocStore {
  private readonly db: DocsDb
  private readonly marks: MarksDb
  /** Options of every write that makes updates durable (appends, snapshots). */
  private readonly durable: { sync: boolean }
  /** claimMeta calls in flight, by meta key */
  private readonly claims = new Map<string, Promise<Uint8Array>>()

  constructor(
    private readonly root: RootDb,
    opts: LevelDocStoreOptions = {},
  ) {
    this.db = openSublevel(root)
    this.marks = openMarks(root)
    this.durable = { sync: opts.sync ?? false }
  }

  async load(docId: string): Promise<DocState> {
    const snapshot = await this.readSnapshot(docId)
    const updates: StoredUpdate[] = []
    for await (const u of this.readLog(docId, (snapshot?.seq ?? 0) + 1)) updates.push(u)
    const lastLogged = updates.length ? updates[updates.length - 1]!.seq : await this.lastLoggedSeq(docId)
    return { snapshot, updates, lastSeq: Math.max(lastLogged, snapshot?.seq ?? 0) }
  }

  private async readSnapshot(docId: string): Promise<Snapshot | null> {
    const value = await this.db.get(snapshotKey(docId))
    return value === undefined ? null : decodeSnapshotValue(value)
  }

  private async lastLoggedSeq(docId: string): Promise<number> {
    const prefix = updatePrefix(docId)
    for await (const key of this.db.keys({ gt: prefix, lt: prefixEnd(prefix), reverse: true, limit: 1 })) {
      return seqOfUpdateKey(key)
    }
    return 0
  }

  append(docId: string, firstSeq: number, entries: UpdateEntry[]): Promise<void> {
    return this.appendMany([{ docId, firstSeq, entries }]).then(() => undefined)
  }

  async appendMany(writes: AppendWrite[]): Promise<AppendedSeqs[]> {
    // One process owns a LevelDB data dir: the head is the log's (or snapshot's) last seq.
    const seqs = await numberWrites(writes, (docId) => this.head(docId))
    const batch = new LogBatch(this.root)
    const values = encodeUpdateValues(writes.flatMap((w) => w.entries))
    let v = 0
    for (let w = 0; w < writes.length; w++) {
      const { docId, entries, marks } = writes[w]!
      const first = seqs[w]!.firstSeq
      for (let i = 0; i < entries.length; i++) batch.put(this.db, updateKey(docId, first + i), values[v++]!)
      // marks ride in the same batch (one atomic write across the two sublevels)
      if (marks) for (const m of marks) batch.put(this.marks, m.key, m.value)
    }
    await batch.write(this.durable.sync)
    return seqs
  }

  private async head(docId: string): Promise<number> {
    return Math.max(await this.lastLoggedSeq(docId), (await this.readSnapshot(docId))?.seq ?? 0)
  }

  async writeSnapshot(docId: string, snapshot: Snapshot): Promise<void> {
    await this.db.put(
      snapshotKey(docId),
      encodeSnapshotValue(snapshot.seq, snapshot.at, snapshot.state),
      this.durable as object,
    )
  }

  async *readLog(docId: string, from = 1, to = Number.MAX_SAFE_INTEGER): AsyncIterable<StoredUpdate> {
    const prefix = updatePrefix(docId)
    const upper = to >= Number.MAX_SAFE_INTEGER ? prefixEnd(prefix) : updateKey(docId, to + 1)
    for await (const [key, value] of this.db.iterator({ gte: updateKey(docId, from), lt: upper })) {
      yield { seq: seqOfUpdateKey(key), ...decodeUpdateValue(value) }
    }
  }

  async prune(docId: string, uptoSeq: number): Promise<void> {
    const snapshot = await this.readSnapshot(docId)
    if ((snapshot?.seq ?? 0) < uptoSeq) throw new Error('prune past the snapshot would lose updates')
    const prefix = updatePrefix(docId)
    const batch = this.db.batch()
    for await (const key of this.db.keys({ gt: prefix, lt: updateKey(docId, uptoSeq + 1) })) batch.del(key)
    await batch.write()
  }

  async readMeta(docId: string, name: string): Promise<Uint8Array | null> {
    const v = await this.db.get(metaKey(docId, name))
    return v === undefined ? null : new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  }

  async writeMeta(docId: string, name: string, value: Uint8Array): Promise<void> {
    await this.db.put(metaKey(docId, name), value)
  }

  async claimMeta(docId: string, name: string, value: Uint8Array): Promise<Uint8Array> {
    // One process owns a LevelDB store: a claim joins the one in flight for the same record, so
    // only the first reads, writes and answers for all of them.
    const key = metaKey(docId, name)
    const running = this.claims.get(key)
    if (running) return running
    const claim = (async () => {
      const stands = await this.readMeta(docId, name)
      if (stands) return stands
      await this.db.put(key, value, this.durable as object)
      return value.slice()
    })().finally(() => this.claims.delete(key))
    this.claims.set(key, claim)
    return claim
  }

  async *readMarks(prefix: string): AsyncIterable<StoreMark> {
    for await (const [key, value] of this.marks.iterator({ gte: prefix, lt: prefix + '\uffff' })) yield { key, value }
  }

  async deleteMarks(keys: string[]): Promise<void> {
    if (keys.length > 0)
      await this.marks.batch(
        keys.map((key) => ({ type: 'del' as const, key })),
        this.durable as object,
      )
  }

  async exists(docId: string): Promise<boolean> {
    if ((await this.db.get(snapshotKey(docId))) !== undefined) return true
    return (await this.lastLoggedSeq(docId)) > 0
  }

  async *listDocs(prefix = ''): AsyncIterable<string> {
    // A document has a snapshot, log entries, or both. Ids come sorted from both ranges; the log
    // range is walked one document at a time (limit 1 past the previous id) instead of per entry.
    const ids = new Set<string>()
    for await (const key of this.db.keys({ gte: 's!' + prefix, lt: prefixEnd('s!' + prefix) })) ids.add(docIdOfKey(key))
    let from = 'u!' + prefix
    for (;;) {
      let next: string | undefined
      for await (const key of this.db.keys({ gte: from, lt: prefixEnd('u!' + prefix), limit: 1 })) next = key
      if (next === undefined) break
      const id = docIdOfKey(next)
      ids.add(id)
      from = prefixEnd(updatePrefix(id))
    }
    yield* [...ids].sort()
  }

  async eraseDocument(docId: string): Promise<void> {
    // One batch: the document is whole or gone, never half erased.
    const batch = this.db.batch()
    batch.del(snapshotKey(docId))
    for (const prefix of [updatePrefix(docId), metaPrefix(docId)]) {
      for await (const key of this.db.keys({ gt: prefix, lt: prefixEnd(prefix) })) batch.del(key)
    }
    await batch.write(this.durable)
  }

  async close(): Promise<void> {
    // The root LevelDB is owned (and closed) by the server.
  }
}
