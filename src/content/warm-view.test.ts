// The warm view against the whole printer: after every random change (typing in a block, a block
// inserted, deleted or turned into a list beside other lists, an attribute set), the view kept
// warm reads byte for byte as the document printed whole, with the same blocks and lines, and
// parts cut from its pieces (and text found in them) without joining them are the whole text's.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { computeEdit } from './formats.js'
import { lengthOf, occurrencesIn, sliceText, withLines, type Lined } from './parts-lines.js'
import { partsOf } from './parts-model.js'
import { WarmView } from './warm-view.js'

const POOL = [
  'Some *words* here.',
  '# Title',
  '- a\n- b',
  '* c\n* d',
  '1. one\n2. two',
  '```\ncode\n```',
  '> quote',
  '---',
  '| a |\n| - |\n| 1 |',
  'Plain.',
]

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Top-level blocks parsed from Markdown, as elements to insert. */
function blocksOf(md: string): Y.XmlElement[] {
  const d = new Y.Doc()
  Y.applyUpdate(d, computeEdit(Y.encodeStateAsUpdate(d), { format: 'markdown', content: md, root: null }).update!)
  return d
    .getXmlFragment('default')
    .toArray()
    .map((e) => (e as Y.XmlElement).clone())
}

function firstText(e: Y.XmlElement | Y.XmlText): Y.XmlText | null {
  if (e instanceof Y.XmlText) return e
  for (const c of e.toArray()) {
    const t = firstText(c as Y.XmlElement)
    if (t) return t
  }
  return null
}

describe('the warm view', () => {
  it('reads as the whole printing after each of 40 random changes, on 25 documents', () => {
    for (let seed = 1; seed <= 25; seed++) {
      const r = rng(seed)
      const pick = () => POOL[Math.floor(r() * POOL.length)]!
      const doc = new Y.Doc()
      const frag = doc.getXmlFragment('default')
      frag.insert(0, blocksOf(Array.from({ length: 6 }, pick).join('\n\n')))
      const warm = new WarmView('default', frag)
      let last = warm.view()
      expect(last).toEqual(withLines(partsOf('default', frag)))
      for (let step = 0; step < 40; step++) {
        // every fifth check sees several changes at once (a catch-up of several updates)
        const changes = step % 5 === 0 ? 4 : 1
        for (let c = 0; c < changes; c++) {
          const n = frag.length
          const at = Math.floor(r() * (n + 1))
          const kind = r()
          doc.transact(() => {
            if (kind < 0.3 && n > 0) {
              const t = firstText(frag.get(Math.min(at, n - 1)) as Y.XmlElement)
              if (t) t.insert(Math.floor(r() * (t.length + 1)), r() < 0.5 ? 'typed ' : '*')
            } else if (kind < 0.55 && n > 1) frag.delete(Math.min(at, n - 1), 1)
            else if (kind < 0.65 && n > 0) (frag.get(Math.min(at, n - 1)) as Y.XmlElement).setAttribute('level', '2')
            else frag.insert(at, blocksOf(pick()))
          })
        }
        const cold = withLines(partsOf('default', frag))
        const view = warm.view()
        if (view !== last) piecesReadAsWhole(view, cold.markdown, r) // a view made new by the change
        last = view
        expect({ seed, step, view: warm.view() }).toEqual({ seed, step, view: cold })
      }
      warm.destroy()
    }
  })
})

/** Parts cut from the view's pieces, and text found in them, are those of the whole text. */
function piecesReadAsWhole(view: Lined, whole: string, r: () => number): void {
  expect(view.pieces?.joined).toBeNull() // read in pieces: nothing joined the text yet
  expect(lengthOf(view)).toBe(whole.length)
  for (let k = 0; k < 20; k++) {
    const a = Math.floor(r() * (whole.length + 1))
    const z = a + Math.floor(r() * (whole.length - a + 1))
    expect(sliceText(view, a, z)).toBe(whole.slice(a, z))
    // a needle taken from anywhere, across blocks and the blank lines between them included
    const needle = whole.slice(a, Math.min(z, a + 1 + Math.floor(r() * 12)))
    if (!needle) continue
    const found: number[] = []
    for (let i = whole.indexOf(needle); i >= 0; i = whole.indexOf(needle, i + needle.length)) found.push(i)
    expect(occurrencesIn(view, needle, Infinity)).toEqual(found)
    expect(occurrencesIn(view, needle, 2)).toEqual(found.slice(0, 2))
  }
  expect(view.pieces?.joined).toBeNull()
}
