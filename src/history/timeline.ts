// The history of one document in memory: every item ever inserted (a gc:false Y.Doc), the
// attribution index, and the base the history starts from. Log entries are applied in seq order;
// what each one newly inserted and deleted is read off its Yjs transaction (state vector before
// and after, the transaction's delete set), so re-sent content (a reconnecting client's sync step
// 2) is never attributed twice.
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'
import type { StoredUpdate } from '../storage/doc-store.js'
import { decodeIndex, encodeIndex } from './attribution-codec.js'
import { AttributionIndex, type IndexEntry, type Range } from './attribution.js'
import { whoKey } from './who.js'

/** The state everything older than the retention window was compacted into (seq 0: none yet). */
export interface Base {
  seq: number
  /** time of the last entry folded into the base; history is exact after it */
  at: number
  /** the document at `seq` with deleted content garbage-collected */
  state: Uint8Array
}

const RECORD_VERSION = 1
const EMPTY_BASE: Base = { seq: 0, at: 0, state: Y.encodeStateAsUpdate(new Y.Doc()) }

export class DocHistory {
  readonly doc = new Y.Doc({ gc: false })
  readonly index = new AttributionIndex()
  lastSeq: number

  constructor(readonly base: Base = EMPTY_BASE) {
    Y.applyUpdate(this.doc, base.state)
    this.lastSeq = base.seq
  }

  /** Applies a log entry and records what it changed; entries at or below lastSeq are skipped. */
  apply(entry: StoredUpdate, record = true): IndexEntry | null {
    if (entry.seq <= this.lastSeq) return null
    this.lastSeq = entry.seq
    const ins: Range[] = []
    const del: Range[] = []
    let inserted = 0
    let deleted = 0
    const onTransaction = (tr: Y.Transaction) => {
      tr.afterState.forEach((after, client) => {
        const before = tr.beforeState.get(client) ?? 0
        if (after <= before) return
        ins.push([client, before, after - before])
        inserted += this.countable(client, before, after)
      })
      tr.deleteSet.clients.forEach((items, client) => {
        for (const { clock, len } of items) {
          del.push([client, clock, len])
          deleted += this.countable(client, clock, clock + len)
        }
      })
    }
    if (record) this.doc.on('afterTransaction', onTransaction)
    try {
      Y.applyUpdate(this.doc, entry.update)
    } catch {
      // The room validated and applied this update before logging it; an update Yjs cannot
      // apply here changed nothing there either.
    } finally {
      if (record) this.doc.off('afterTransaction', onTransaction)
    }
    if (!record || (ins.length === 0 && del.length === 0)) return null
    const e: IndexEntry = {
      seq: entry.seq,
      at: entry.at,
      user: whoKey(entry.user, entry.attrs),
      inserted,
      deleted,
      ins,
      del,
    }
    this.index.add(e)
    return e
  }

  /** Whether nothing but (at most) one change by `user` (a who key) was logged after `seq`. */
  quietSince(seq: number, user: string): boolean {
    let changes = 0
    for (let i = this.index.size - 1; i >= 0 && this.index.seq(i) > seq; i--) {
      if (this.index.user(i) !== user || ++changes > 1) return false
    }
    return true
  }

  /** Countable units (characters, embeds, nested types, values) between two clocks of a client. */
  private countable(client: number, from: number, to: number): number {
    let n = 0
    forStructs(this.doc, client, from, to, (s, start, end) => {
      if (s instanceof Y.Item && s.countable) n += end - start
    })
    return n
  }

  /** Frees the history document: a history lives for one job (job.ts). */
  destroy(): void {
    this.doc.destroy()
  }

  encode(): Uint8Array {
    const e = encoding.createEncoder()
    encoding.writeVarUint(e, RECORD_VERSION)
    encoding.writeVarUint(e, this.base.seq)
    encoding.writeVarUint(e, this.base.at)
    encoding.writeVarUint8Array(e, this.base.state)
    encoding.writeVarUint(e, this.lastSeq)
    encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(this.doc))
    encoding.writeVarUint8Array(e, encodeIndex(this.index.entries()))
    return encoding.toUint8Array(e)
  }

  static decode(bytes: Uint8Array): DocHistory {
    const d = decoding.createDecoder(bytes)
    const version = decoding.readVarUint(d)
    if (version !== RECORD_VERSION) throw new Error(`unknown history record version ${version}`)
    const base: Base = {
      seq: decoding.readVarUint(d),
      at: decoding.readVarUint(d),
      state: decoding.readVarUint8Array(d),
    }
    const h = new DocHistory(base)
    h.lastSeq = decoding.readVarUint(d)
    Y.applyUpdate(h.doc, decoding.readVarUint8Array(d))
    for (const entry of decodeIndex(decoding.readVarUint8Array(d))) h.index.add(entry)
    return h
  }
}

/** Where a stored history starts and ends, read off its record without building anything. */
export interface RecordHead {
  base: { seq: number; at: number }
  lastSeq: number
}

/** The head of a history record; throws on a record of another version. */
export function readRecordHead(bytes: Uint8Array): RecordHead {
  const d = decoding.createDecoder(bytes)
  const version = decoding.readVarUint(d)
  if (version !== RECORD_VERSION) throw new Error(`unknown history record version ${version}`)
  const base = { seq: decoding.readVarUint(d), at: decoding.readVarUint(d) }
  decoding.readVarUint8Array(d) // the base's state: a view, not a copy
  return { base, lastSeq: decoding.readVarUint(d) }
}

/** Calls f for each struct of a client overlapping [from, to), with the overlapping clock span. */
export function forStructs(
  doc: Y.Doc,
  client: number,
  from: number,
  to: number,
  f: (s: Y.Item | Y.GC, start: number, end: number) => void,
): void {
  const structs = doc.store.clients.get(client)
  if (!structs || structs.length === 0) return
  const last = structs[structs.length - 1]!
  if (from >= last.id.clock + last.length) return
  for (let i = Y.findIndexSS(structs, Math.max(from, structs[0]!.id.clock)); i < structs.length; i++) {
    const s = structs[i]!
    if (s.id.clock >= to) break
    f(s, Math.max(from, s.id.clock), Math.min(to, s.id.clock + s.length))
  }
}
