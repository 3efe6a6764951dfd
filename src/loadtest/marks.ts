// Content marks: each load update inserts one unique key `sender:seq` into the Y.Map `marks` with the
// send time as value. A receiver finds the marks inside whatever update message reaches it (single,
// merged, or a sync step 2), so deliveries are counted by content, never by message count.
import * as Y from 'yjs'
import { decodeAwareness } from '@tandem/protocol/awareness-entries'

export interface Mark {
  sender: number
  seq: number
  /** send time, ms on the performance.timeOrigin + performance.now() clock */
  ts: number
}

export const MARK_MAP = 'marks'

export function now(): number {
  return performance.timeOrigin + performance.now()
}

/** A sender's own document: produces one small update per mark. */
export class MarkWriter {
  private readonly doc = new Y.Doc()
  private readonly map = this.doc.getMap<number>(MARK_MAP)
  private last: Uint8Array | null = null

  constructor(readonly sender: number) {
    this.doc.on('update', (u: Uint8Array) => {
      this.last = u
    })
  }

  write(seq: number, ts = now()): Uint8Array {
    this.last = null
    this.map.set(`${this.sender}:${seq}`, ts)
    const u = this.last as Uint8Array | null
    if (!u) throw new Error('no update produced')
    return u
  }

  /**
   * Overwrites this sender's one entry (not a mark: never counted as a delivery). Yjs merges the
   * replaced entries, so the document stays the same size however long this goes on (soak).
   */
  overwrite(ts = now()): Uint8Array {
    this.last = null
    this.map.set(`s${this.sender}`, ts)
    const u = this.last as Uint8Array | null
    if (!u) throw new Error('no update produced')
    return u
  }

  stateVector(): Uint8Array {
    return Y.encodeStateVector(this.doc)
  }

  diff(stateVector: Uint8Array): Uint8Array {
    return Y.encodeStateAsUpdate(this.doc, stateVector)
  }

  destroy(): void {
    this.doc.destroy()
  }
}

const KEY = /^(\d+):(\d+)$/

export function readMarks(update: Uint8Array): Mark[] {
  const out: Mark[] = []
  const { structs } = Y.decodeUpdate(update)
  for (const s of structs) {
    if (!(s instanceof Y.Item) || typeof s.parentSub !== 'string') continue
    const m = KEY.exec(s.parentSub)
    if (!m) continue
    const v = s.content.getContent()[0]
    if (typeof v !== 'number') continue
    out.push({ sender: Number(m[1]), seq: Number(m[2]), ts: v })
  }
  return out
}

/** Awareness states of load clients carry {b: sender, s: seq, t: ts}. */
export function readAwarenessMarks(update: Uint8Array): Mark[] {
  const out: Mark[] = []
  for (const e of decodeAwareness(update)) {
    const st = e.state as { b?: unknown; s?: unknown; t?: unknown } | null
    if (st && typeof st.b === 'number' && typeof st.s === 'number' && typeof st.t === 'number') {
      out.push({ sender: st.b, seq: st.s, ts: st.t })
    }
  }
  return out
}

/**
 * Every receiver in a room usually gets the same bytes: decode each distinct payload once.
 * Bounded; cleared wholesale when full (a miss only costs a decode).
 */
export class DecodeCache {
  private readonly map = new Map<string, Mark[]>()
  hits = 0
  misses = 0

  constructor(
    private readonly decode: (u: Uint8Array) => Mark[],
    private readonly max = 50_000,
  ) {}

  get(payload: Uint8Array): Mark[] {
    const key = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('latin1')
    let marks = this.map.get(key)
    if (marks) {
      this.hits++
      return marks
    }
    this.misses++
    marks = this.decode(payload)
    if (this.map.size >= this.max) this.map.clear()
    this.map.set(key, marks)
    return marks
  }
}
