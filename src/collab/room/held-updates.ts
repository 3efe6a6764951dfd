// Updates a room holds back because something they build on is missing: a Y.Doc's pending
// structs, kept as the updates (or the parts of updates, update-split.ts) that could not be
// integrated. Like pending structs they are served with every answer that tells a peer what it
// lacks (merged once per change), never counted in the state vector, and taken in once the gap
// fills (doc-state.ts). Unlike a Y.Doc's they are bounded: past MAX_HELD_STRUCTS or
// MAX_HELD_BYTES a socket or REST writer's update that would be held is refused (try again once
// what it builds on arrived); updates already committed (a log replay, another cluster node's)
// are always taken. Structs, not updates, are counted: a snapshot carries every held update
// merged into one, and judging held updates again costs per struct.
import * as Y from 'yjs'
import { STRUCT_STRIDE, type UpdateShape } from '@tandem/protocol/update-scan'

/** Held structs a document keeps at most; a gap's updates hold a handful. */
export const MAX_HELD_STRUCTS = 10_000
/** Held bytes a document keeps at most (16 MiB), counted in the document's size as well. */
export const MAX_HELD_BYTES = 16 * 1024 * 1024

interface Held {
  update: Uint8Array
  /** the update's structs as client, first clock, end clock (exclusive), flattened */
  spans: number[]
}

export class HeldUpdates {
  private entries: Held[] = []
  private merged: Uint8Array | null = null
  bytes = 0
  /** structs held, over every update */
  structs = 0

  get count(): number {
    return this.entries.length
  }

  /** Whether one more update whose scan filled `shape`, of `bytes`, stays within the bounds. */
  fits(shape: UpdateShape, bytes: number): boolean {
    return (
      this.structs + shape.structs.length / STRUCT_STRIDE <= MAX_HELD_STRUCTS && this.bytes + bytes <= MAX_HELD_BYTES
    )
  }

  /** Holds an update whose scan filled `shape` (it has structs, and no deletions: see DocState). */
  add(update: Uint8Array, shape: UpdateShape): void {
    const s = shape.structs
    const spans: number[] = []
    for (let i = 0; i < s.length; i += STRUCT_STRIDE) spans.push(s[i]!, s[i + 1]!, s[i + 1]! + s[i + 2]!)
    this.entries.push({ update, spans })
    this.bytes += update.length
    this.structs += spans.length / 3
    this.merged = null
  }

  /**
   * Whether every struct in `shape` that is not served yet (its client's served clock from
   * `served`) is held already, so holding it again would add nothing (a provider re-sending the
   * pending structs it was sent). Skips are not structs, so a gap is never counted as held.
   */
  covers(shape: UpdateShape, served: (client: number) => number): boolean {
    const s = shape.structs
    for (let i = 0; i < s.length; i += STRUCT_STRIDE) {
      const client = s[i]!
      const from = Math.max(s[i + 1]!, served(client))
      const to = s[i + 1]! + s[i + 2]!
      if (from < to && !this.holdsRange(client, from, to)) return false
    }
    return true
  }

  /** Whether [from, to) of `client` lies within the held structs (several may cover it in turn). */
  private holdsRange(client: number, from: number, to: number): boolean {
    for (let at = from, moved = true; moved;) {
      moved = false
      for (const h of this.entries) {
        const sp = h.spans
        for (let i = 0; i < sp.length; i += 3) {
          if (sp[i] === client && sp[i + 1]! <= at && sp[i + 2]! > at) {
            at = sp[i + 2]!
            if (at >= to) return true
            moved = true
          }
        }
      }
    }
    return false
  }

  /** Every held update, removed (to be judged again: a gap filled). */
  takeAll(): Uint8Array[] {
    const all = this.entries.map((h) => h.update)
    this.entries = []
    this.bytes = 0
    this.structs = 0
    this.merged = null
    return all
  }

  /** The held updates as one update, merged once per change; null when none is held. */
  pending(): Uint8Array | null {
    if (this.entries.length === 0) return null
    this.merged ??=
      this.entries.length === 1 ? this.entries[0]!.update : Y.mergeUpdates(this.entries.map((h) => h.update))
    return this.merged
  }
}
