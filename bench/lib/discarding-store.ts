// A document store that numbers appends as if it wrote them and drops them: the `nowrite` ablation
// (bench/ablate.ts) wraps the server's store with it to measure what the append costs. Snapshots,
// side records, marks and everything else still reach the store it wraps.
import {
  numberWrites,
  type AppendedSeqs,
  type AppendWrite,
  type DocState,
  type DocStore,
  type Snapshot,
  type StoredUpdate,
  type StoreMark,
} from '../../src/storage/doc-store.js'

export class DiscardingStore implements DocStore {
  /** each document's last seq as loaded, then as numbered here */
  private readonly heads = new Map<string, number>()
  readonly readMarks?: (prefix: string) => AsyncIterable<StoreMark>
  readonly deleteMarks?: (keys: string[]) => Promise<void>

  constructor(private readonly inner: DocStore) {
    this.readMarks = inner.readMarks?.bind(inner)
    this.deleteMarks = inner.deleteMarks?.bind(inner)
  }

  async load(docId: string): Promise<DocState> {
    const state = await this.inner.load(docId)
    this.heads.set(docId, Math.max(state.lastSeq, this.heads.get(docId) ?? 0))
    return state
  }

  async append(): Promise<void> {}

  async appendMany(writes: AppendWrite[]): Promise<AppendedSeqs[]> {
    const seqs = await numberWrites(
      writes,
      async (docId) => this.heads.get(docId) ?? (await this.inner.load(docId)).lastSeq,
    )
    for (const s of seqs) this.heads.set(s.docId, Math.max(s.lastSeq, this.heads.get(s.docId) ?? 0))
    return seqs
  }

  writeSnapshot(docId: string, snapshot: Snapshot): Promise<void> {
    return this.inner.writeSnapshot(docId, snapshot)
  }

  readLog(docId: string, from?: number, to?: number): AsyncIterable<StoredUpdate> {
    return this.inner.readLog(docId, from, to)
  }

  prune(docId: string, uptoSeq: number): Promise<void> {
    return this.inner.prune(docId, uptoSeq)
  }

  readMeta(docId: string, name: string): Promise<Uint8Array | null> {
    return this.inner.readMeta(docId, name)
  }

  writeMeta(docId: string, name: string, value: Uint8Array): Promise<void> {
    return this.inner.writeMeta(docId, name, value)
  }

  claimMeta(docId: string, name: string, value: Uint8Array): Promise<Uint8Array> {
    return this.inner.claimMeta(docId, name, value)
  }

  exists(docId: string): Promise<boolean> {
    return this.inner.exists(docId)
  }

  listDocs(prefix?: string): AsyncIterable<string> {
    return this.inner.listDocs(prefix)
  }

  eraseDocument(docId: string): Promise<void> {
    this.heads.delete(docId)
    return this.inner.eraseDocument(docId)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
