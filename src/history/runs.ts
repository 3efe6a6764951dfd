// Items of the history document cut into runs that share one insert and one delete attribution.
// Yjs merges a client's consecutive characters into one item, so one item may hold edits of many
// log entries; every reader (changeset, rollback, activity deltas) goes through these runs.
import * as Y from 'yjs'
import type { AttributionIndex } from './attribution.js'
import type { AnyType } from '../ydoc/roots.js'

/** Who and when; `user` null and `at` -Infinity for changes older than the retained history. */
export interface Mark {
  user: string | null
  at: number
  seq: number
}

export interface Run {
  item: Y.Item
  /** offset into the item's content and length of the run */
  offset: number
  len: number
  ins: Mark
  /** null while the run is not deleted */
  del: Mark | null
}

const BEFORE: Mark = { user: null, at: -Infinity, seq: 0 }

const markOf = (index: AttributionIndex, i: number): Mark =>
  i < 0 ? BEFORE : { user: index.user(i), at: index.at(i), seq: index.seq(i) }

export function* runsOf(item: Y.Item, index: AttributionIndex): Generator<Run> {
  const { client, clock } = item.id
  const end = clock + item.length
  for (let c = clock; c < end;) {
    const ins = index.insertOf(client, c)
    const del = item.deleted ? index.deleteOf(client, c) : null
    const until = Math.min(end, ins.until, del ? del.until : Infinity)
    yield {
      item,
      offset: c - clock,
      len: until - c,
      ins: markOf(index, ins.entry),
      del: del ? markOf(index, del.entry) : null,
    }
    c = until
  }
}

/** Whether a run is part of the document at `time`. */
export const visibleAt = (r: Run, time: number) => r.ins.at <= time && !(r.del && r.del.at <= time)

/** The items of a sequence type in document order, deleted ones included. */
export function* itemsOf(type: AnyType): Generator<Y.Item> {
  for (let item = type._start; item !== null; item = item.right) yield item
}

/** A run's content: a string slice, values, or the embed / nested type it holds; null if gone. */
export function contentOf(
  r: Run,
): { text: string } | { values: unknown[] } | { embed: unknown } | { type: AnyType } | null {
  const c = r.item.content
  if (c instanceof Y.ContentString) return { text: c.str.slice(r.offset, r.offset + r.len) }
  if (c instanceof Y.ContentAny) return { values: c.arr.slice(r.offset, r.offset + r.len) }
  if (c instanceof Y.ContentJSON) return { values: c.arr.slice(r.offset, r.offset + r.len) }
  if (c instanceof Y.ContentBinary) return { values: [c.content] }
  if (c instanceof Y.ContentEmbed) return { embed: c.embed }
  if (c instanceof Y.ContentType) return { type: c.type }
  return null
}
