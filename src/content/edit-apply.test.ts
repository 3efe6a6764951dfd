// The pieces targeted edits stand on, on real Yjs documents: a run of blocks printed alone (with
// its neighbours) reads exactly as the same lines of the whole view, for every run of documents
// mixing lists in a row, fences, quotes, tables and rules; and edits carried from the base's text
// to today's land on their own text or are refused.
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { blockIdOf } from './block-id.js'
import { computeTargeted } from './edit-apply.js'
import { runText } from './edit-carry.js'
import { locate } from './edit-locate.js'
import type { EditOp } from './edit-ops.js'
import { computeEdit, readContent } from './formats.js'
import { sliceOf, withLines } from './parts-lines.js'
import { partsOf } from './parts-model.js'
import { liveItems } from '../ydoc/roots.js'

const POOL = [
  'A paragraph with *emphasis* and **strong** words.',
  '# A heading',
  '## Second level',
  '- one\n- two',
  '* star one\n* star two',
  '1. first\n2. second',
  '1) paren first\n2) paren second',
  '```js\nconst x = 1\n```',
  '> quoted\n> text',
  '---',
  '| a | b |\n| :- | -: |\n| 1 | 2 |',
  '- [ ] a task\n- [x] done',
  'A line with a hard  \nbreak and `code`.',
  '+ plus list',
  'Text ending in a star\\*',
  '    indented code',
]

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function rng(seed: number) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function docOf(markdown: string): Y.Doc {
  const doc = new Y.Doc()
  Y.applyUpdate(
    doc,
    computeEdit(Y.encodeStateAsUpdate(doc), { format: 'markdown', content: markdown, root: null }).update!,
  )
  return doc
}

const markdownOf = (doc: Y.Doc) => readContent(Y.encodeStateAsUpdate(doc), 'markdown', null).content as string

describe('a run printed alone', () => {
  it('reads as the same lines of the whole view, for every run of 60 random documents', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = rng(seed)
      const md = Array.from({ length: 4 + Math.floor(r() * 8) }, () => POOL[Math.floor(r() * POOL.length)]).join('\n\n')
      const doc = docOf(md)
      const fragment = doc.getXmlFragment('default')
      const view = withLines(partsOf('default', fragment))
      const items = new Map([...liveItems(fragment)].map((i) => [blockIdOf(i.id), i]))
      for (let a = 0; a < view.blocks.length; a++) {
        for (let z = a; z < view.blocks.length; z++) {
          const [from] = sliceOf(view, view.blocks[a]!.line, view.blocks[a]!.end)
          const [, to] = sliceOf(view, view.blocks[z]!.line, view.blocks[z]!.end)
          const want = view.markdown.slice(from, to).replace(/\n$/, '')
          expect({ seed, a, z, text: runText(items.get(view.blocks[a]!.id)!, items.get(view.blocks[z]!.id)!) }).toEqual(
            { seed, a, z, text: want },
          )
        }
      }
    }
  })
})

/** Edits located at `base` (a document), applied to `now` (the base with a person's change). */
function editAcross(baseMd: string, person: (d: Y.Doc) => void, ops: EditOp[] | ((ids: string[]) => EditOp[])) {
  const base = docOf(baseMd)
  const view = withLines(partsOf('default', base.getXmlFragment('default')))
  const runs = locate(view, typeof ops === 'function' ? ops(view.blocks.map((b) => b.id)) : ops)
  const now = new Y.Doc()
  Y.applyUpdate(now, Y.encodeStateAsUpdate(base))
  now.transact(() => person(now))
  const done = computeTargeted(Y.encodeStateAsUpdate(now), { root: null, runs, context: 1 })
  if ('refused' in done) return { refused: done.refused.json }
  if (done.update) Y.applyUpdate(now, done.update)
  return { markdown: markdownOf(now), model: done.model.markdown }
}

const textOf = (d: Y.Doc, block: number) => (d.getXmlFragment('default').get(block) as Y.XmlElement).get(0) as Y.XmlText

describe('an edit carried from its base to the document now', () => {
  it('keeps what a person typed in the same paragraph, before and after the replaced words', () => {
    const out = editAcross(
      'Ship on Friday after review.\n\nOther.',
      (d) => {
        textOf(d, 0).insert(0, 'Please ')
        textOf(d, 0).insert('Please Ship on Friday after review'.length, ' by Ann')
      },
      [{ kind: 'replace', old: 'Friday', new: 'Monday', all: false }],
    )
    expect(out.markdown).toBe('Please Ship on Monday after review by Ann.\n\nOther.\n')
    expect(out.model).toBe(out.markdown)
  })

  it('is refused when the text it replaces was changed since the base, and nothing is written', () => {
    const out = editAcross('Ship on Friday.\n', (d) => textOf(d, 0).insert('Ship on Fri'.length, 'XX'), [
      { kind: 'replace', old: 'Friday', new: 'Monday', all: false },
    ])
    expect(out.refused).toMatchObject({ code: 'changed_since_base' })
  })

  it('is refused when its block was deleted since the base', () => {
    const out = editAcross('One.\n\nTwo.\n', (d) => d.getXmlFragment('default').delete(1, 1), [
      { kind: 'replace', old: 'Two', new: 'Three', all: false },
    ])
    expect(out.refused).toMatchObject({ code: 'changed_since_base', block: expect.stringMatching(/^b-/) })
  })

  it('inserts after a block at its end even when a person appended to that block since', () => {
    const out = editAcross(
      'First.\n\nLast.',
      (d) => textOf(d, 0).insert('First.'.length, ' More.'),
      (ids) => [{ kind: 'insert', markdown: '## Added', where: { after: ids[0]! } }],
    )
    expect(out.markdown).toBe('First. More.\n\n## Added\n\nLast.\n')
  })

  it('edits its own blocks, by id, when a person inserted a paragraph reading exactly like one of them between them', () => {
    const base = 'Alpha one.\n\nBeta two.\n\nGamma three.'
    const edits: EditOp[] = [
      { kind: 'replace', old: 'one', new: 'ONE', all: false },
      { kind: 'replace', old: 'two', new: 'TWO', all: false },
    ]
    const between = (text: string) => (d: Y.Doc) => {
      const p = new Y.XmlElement('paragraph')
      const t = new Y.XmlText()
      t.insert(0, text)
      p.insert(0, [t])
      d.getXmlFragment('default').insert(1, [p])
    }
    expect(editAcross(base, between('Alpha one.'), edits).markdown).toBe(
      'Alpha ONE.\n\nAlpha one.\n\nBeta TWO.\n\nGamma three.\n',
    )
    expect(editAcross(base, between('Beta two.'), edits).markdown).toBe(
      'Alpha ONE.\n\nBeta two.\n\nBeta TWO.\n\nGamma three.\n',
    )
    // an edit across the two blocks is carried across the run, the new paragraph between kept
    const across = editAcross(base, (d) => textOf(d, 2).insert(0, 'Now '), [
      { kind: 'replace', old: 'one.\n\nBeta', new: 'one, and beta', all: false },
    ])
    expect(across.markdown).toBe('Alpha one, and beta two.\n\nNow Gamma three.\n')
  })

  it('refuses new_text that leaves a fence open over the blocks after it', () => {
    expect(() =>
      editAcross('One.\n\nTwo.\n', () => {}, [{ kind: 'replace', old: 'One.', new: '```\nOne.', all: false }]),
    ).toThrow(/leaves a block open/)
  })
})

describe('a delete carried from its base', () => {
  it('deletes its own block: a block inserted beside it is a new one, and typing in the deleted block goes with it', () => {
    const base = docOf('Alpha one.\n\nBeta two.\n\nGamma three.')
    const view = withLines(partsOf('default', base.getXmlFragment('default')))
    const ids = view.blocks.map((b) => b.id)
    const runs = locate(view, [
      { kind: 'insert', markdown: 'Delta four.', where: { after: ids[0]! } },
      { kind: 'delete', block: ids[1]!, section: false },
    ])
    const done = computeTargeted(Y.encodeStateAsUpdate(base), { root: null, runs, context: 1 })
    if ('refused' in done) throw new Error(JSON.stringify(done.refused.json))
    const [kept, inserted] = done.changes[0]!.blocks
    expect({ kept, count: done.changes[0]!.blocks.length, reused: inserted === ids[1] }).toEqual({
      kept: ids[0],
      count: 2,
      reused: false,
    })
    // a person typing in Beta meanwhile: their update meets the edit on the server
    const ann = new Y.Doc()
    Y.applyUpdate(ann, Y.encodeStateAsUpdate(base))
    const sv = Y.encodeStateVector(ann)
    textOf(ann, 1).insert(4, ' (Ann)')
    const now = new Y.Doc()
    Y.applyUpdate(now, Y.encodeStateAsUpdate(base))
    Y.applyUpdate(now, done.update!)
    Y.applyUpdate(now, Y.encodeStateAsUpdate(ann, sv))
    expect(markdownOf(now)).toBe('Alpha one.\n\nDelta four.\n\nGamma three.\n')
  })

  it('is refused when its block was changed since the base, even by text typed at its end', () => {
    for (const at of ['end', 'start'] as const) {
      const out = editAcross(
        'One.\n\nTwo.\n',
        (d) => textOf(d, 1).insert(at === 'end' ? 4 : 0, ' Ann '),
        (ids) => [{ kind: 'delete', block: ids[1]!, section: false }],
      )
      expect(out.refused).toMatchObject({
        code: 'changed_since_base',
        block: expect.stringMatching(/^b-/),
        now: expect.stringContaining('Ann'),
      })
    }
  })
})
