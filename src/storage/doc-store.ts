// The narrow interface every document store implements. A document is an append-only log of
// attributed updates plus, after compaction, a snapshot that stands for every update up to its
// seq. The log itself is kept (history needs it) until `prune` drops entries a snapshot covers.
import type { Attributes } from '@tandem/api/attributions'

export interface UpdateEntry {
  user: string
  /** server time, epoch ms */
  at: number
  update: Uint8Array
  /**
   * Custom attributions of the token or request that sent it (`{source: "ai", ...}`). Absent
   * (never `{}`) when there are none: the common case costs nothing to store or read.
   */
  attrs?: Attributes
}

/** At most 8 keys `[a-z0-9_]{1,32}` -> strings of at most 128 characters (src/auth/attributions.ts checks). */
export type { Attributes }

export interface StoredUpdate extends UpdateEntry {
  seq: number
}

export interface Snapshot {
  /** the snapshot includes every update with seq <= this */
  seq: number
  state: Uint8Array
  at: number
}

export interface DocState {
  snapshot: Snapshot | null
  /** updates after the snapshot, in seq order */
  updates: StoredUpdate[]
  /** highest seq ever written (0 for a new document) */
  lastSeq: number
}

/**
 * One document's share of a write cycle: entries get seqs firstSeq, firstSeq+1, ... Without
 * firstSeq the store assigns the next seqs after the document's head (cluster mode: several
 * nodes append to one document, so no node can know the next seq; docs/cluster.md "Sequences").
 */
export interface AppendWrite {
  docId: string
  firstSeq?: number
  entries: UpdateEntry[]
  /**
   * Marks of another module that land in the same atomic write as the entries, so they exist
   * exactly when the entries do (the webhooks outbox's dirty markers, docs/webhooks.md).
   */
  marks?: StoreMark[]
}

/** A small record kept beside the documents, keyed in one space shared by the modules that mark. */
export interface StoreMark {
  key: string
  value: string
}

/** The seqs one write got: firstSeq..lastSeq, in the order of its entries. */
export interface AppendedSeqs {
  docId: string
  firstSeq: number
  lastSeq: number
}

/** Every write of a cycle either names its seqs or none does. */
export function assignsSeqs(writes: readonly AppendWrite[]): boolean {
  const without = writes.filter((w) => w.firstSeq === undefined).length
  if (without !== 0 && without !== writes.length)
    throw new Error('appendMany: either every write names its firstSeq or none does')
  return without > 0
}

/**
 * Seqs of a cycle's writes for a store one process owns: named ones as given, else each document
 * continues from `head` (its last seq) and from earlier writes of the same cycle.
 */
export async function numberWrites(
  writes: readonly AppendWrite[],
  head: (docId: string) => number | Promise<number>,
): Promise<AppendedSeqs[]> {
  const assign = assignsSeqs(writes)
  const next = new Map<string, number>()
  const seqs: AppendedSeqs[] = []
  for (const { docId, firstSeq, entries } of writes) {
    const first = assign ? (next.get(docId) ?? (await head(docId))) + 1 : firstSeq!
    next.set(docId, first + entries.length - 1)
    seqs.push({ docId, firstSeq: first, lastSeq: first + entries.length - 1 })
  }
  return seqs
}

export interface DocStore {
  /** Everything needed to rebuild the current state. */
  load(docId: string): Promise<DocState>
  /** Appends entries with seqs firstSeq, firstSeq+1, ... in one atomic write. */
  append(docId: string, firstSeq: number, entries: UpdateEntry[]): Promise<void>
  /**
   * The appends of one write cycle, across documents, in one atomic write (one round trip for a
   * server-backed store): all land or none does. Group commit calls this once per cycle.
   * Answers the seqs each write got, in the order of `writes`. `cycleId` (unique in the cluster)
   * lets a server-backed store find a cycle that committed although its answer was lost.
   */
  appendMany(writes: AppendWrite[], cycleId?: string): Promise<AppendedSeqs[]>
  /** Records a snapshot; earlier snapshots are replaced. Log entries stay (see prune). */
  writeSnapshot(docId: string, snapshot: Snapshot): Promise<void>
  /** Log entries with from <= seq <= to, in seq order (history, attribution). */
  readLog(docId: string, from?: number, to?: number): AsyncIterable<StoredUpdate>
  /** Drops log entries with seq <= uptoSeq; a snapshot must already cover them. */
  prune(docId: string, uptoSeq: number): Promise<void>
  /** A named side record kept beside the document by another module (history checkpoints); null if none. */
  readMeta(docId: string, name: string): Promise<Uint8Array | null>
  /** Replaces a side record. Side records are not log entries: prune never touches them. */
  writeMeta(docId: string, name: string, value: Uint8Array): Promise<void>
  /**
   * Stores a side record unless one stands, and answers the one that stands: of concurrent claims
   * (also from other processes on a shared store) exactly one wins and every caller gets its value.
   */
  claimMeta(docId: string, name: string, value: Uint8Array): Promise<Uint8Array>
  /** Marks whose key starts with `prefix`, in key order (stores without marks: none). */
  readMarks?(prefix: string): AsyncIterable<StoreMark>
  /** Drops marks by key; an absent key is no error. */
  deleteMarks?(keys: string[]): Promise<void>
  /** Whether anything was ever stored for the document. */
  exists(docId: string): Promise<boolean>
  /** Ids of stored documents, optionally under a prefix. */
  listDocs(prefix?: string): AsyncIterable<string>
  /**
   * Erases everything stored for the document: its log, snapshot, side records (history) and, on
   * PostgreSQL, its seq head. Irreversible; idempotent (erasing nothing is no error). Afterwards
   * the document loads empty and does not exist, as if it had never been written.
   */
  eraseDocument(docId: string): Promise<void>
  close(): Promise<void>
}

/** Document ids join org, doc and branch; the parts are restricted to [A-Za-z0-9._~-]. */
export const docIdOf = (org: string, doc: string, branch = 'main') => `${org}/${doc}/${branch}`
