// Random edits of a Yjs document, as editors make them (text with formatting, maps, arrays of
// nested types, XML, deletions), and what a document shows, for convergence tests.
import * as Y from 'yjs'

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * What a document shows: every root type's JSON, XML as its string. Text without its formatting:
 * a Y.Doc applying remote changes deletes formatting marks it finds redundant, on its own, so two
 * documents with the same updates may differ there (clients do the same cleanup themselves).
 */
export function content(d: Y.Doc): unknown {
  return {
    t: d.getText('t').toString(),
    m: d.getMap('m').toJSON(),
    a: d.getArray('a').toJSON(),
    x: d.getXmlFragment('x').toString(),
  }
}

/** One random edit by `d`: text with formatting, maps, arrays of nested types, XML, deletions. */
export function edit(d: Y.Doc, rand: () => number): void {
  const t = d.getText('t')
  const r = rand()
  if (r < 0.3)
    t.insert(
      Math.floor(rand() * (t.length + 1)),
      'abcdefgh'.slice(0, 1 + Math.floor(rand() * 6)),
      rand() < 0.3 ? { bold: true } : undefined,
    )
  else if (r < 0.45 && t.length > 0) {
    const at = Math.floor(rand() * t.length)
    t.delete(at, Math.min(t.length - at, 1 + Math.floor(rand() * 4)))
  } else if (r < 0.5 && t.length > 2) t.format(0, 2, { italic: rand() < 0.5 ? true : null })
  else if (r < 0.6)
    d.getMap('m').set(`k${Math.floor(rand() * 8)}`, rand() < 0.5 ? Math.floor(rand() * 100) : new Y.Map([['n', 1]]))
  else if (r < 0.65) d.getMap('m').delete(`k${Math.floor(rand() * 8)}`)
  else if (r < 0.75) {
    const a = d.getArray<unknown>('a')
    if (rand() < 0.3 && a.length > 0) a.delete(Math.floor(rand() * a.length), 1)
    else a.insert(Math.floor(rand() * (a.length + 1)), [rand() < 0.5 ? new Y.Array() : new Y.Text('n')])
  } else if (r < 0.85) {
    // into a nested type: its first item names its parent by id
    const a = d.getArray<unknown>('a')
    const nested = a.length > 0 ? a.get(Math.floor(rand() * a.length)) : null
    if (nested instanceof Y.Array) nested.insert(0, [Math.floor(rand() * 9)])
    else if (nested instanceof Y.Text) nested.insert(0, 'z')
  } else {
    const x = d.getXmlFragment('x')
    if (rand() < 0.5 || x.length === 0) x.insert(x.length, [new Y.XmlElement('p')])
    else {
      const el = x.get(Math.floor(rand() * x.length))
      if (el instanceof Y.XmlElement) el.insert(el.length, [new Y.XmlText('q')])
    }
  }
}
