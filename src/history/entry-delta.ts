// The content a group of log entries inserted and deleted, read from the history document by the
// id ranges the attribution index holds: `[{insert}, {delete}]` in id order.
import * as Y from 'yjs'
import type { Range } from './attribution.js'
import { forStructs, type DocHistory } from './timeline.js'

export type DeltaOp = { insert: unknown } | { delete: unknown }

export function entryDelta(h: DocHistory, entries: readonly number[]): DeltaOp[] {
  const out: DeltaOp[] = []
  const add = (kind: 'insert' | 'delete', value: unknown) => {
    const prev = out[out.length - 1] as Record<string, unknown> | undefined
    if (prev && kind in prev && typeof prev[kind] === 'string' && typeof value === 'string') prev[kind] += value
    else out.push((kind === 'insert' ? { insert: value } : { delete: value }) as DeltaOp)
  }
  const walk = (kind: 'insert' | 'delete', ranges: Range[]) => {
    for (const [client, clock, len] of ranges) {
      forStructs(h.doc, client, clock, clock + len, (s, start, end) => {
        if (!(s instanceof Y.Item) || !s.countable) return
        const value = piece(s, start - s.id.clock, end - start)
        if (value !== undefined) add(kind, value)
      })
    }
  }
  for (const i of entries) {
    walk('insert', h.index.ranges(i, 'ins'))
    walk('delete', h.index.ranges(i, 'del'))
  }
  return out
}

function piece(item: Y.Item, offset: number, len: number): unknown {
  const c = item.content
  if (c instanceof Y.ContentString) return c.str.slice(offset, offset + len)
  if (c instanceof Y.ContentAny || c instanceof Y.ContentJSON) return c.arr.slice(offset, offset + len)
  if (c instanceof Y.ContentEmbed) return c.embed
  if (c instanceof Y.ContentType)
    return c.type instanceof Y.XmlElement ? { element: c.type.nodeName } : { type: c.type.constructor.name }
  return undefined
}
