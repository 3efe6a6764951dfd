// Deeply nested documents through the content REST route on a real server: whatever a read returns
// writes back to the same document, and past the one depth limit (MAX_DEPTH, the same for reads and
// writes, Markdown and ProseMirror JSON) a write is refused with 422 naming the limit, never cut.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { MAX_DEPTH } from '../../src/content/depth.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import type { PmNode } from '../../src/content/pm-json.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>

const token = async (doc: string, sub = 'agent') =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub, acc: 'rw', ttlSec: 600 })).token

async function call(method: string, doc: string, tok: string, query = '', body?: unknown) {
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined
      ? {}
      : {
          body: typeof body === 'string' ? body : JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const para = (text: string) => {
  const p = new Y.XmlElement('paragraph')
  p.insert(0, [new Y.XmlText(text)])
  return p
}

/** A bullet outline `levels` deep as Tiptap stores it: each item holds its paragraph and the next level's list. */
function outline(levels: number): Y.XmlElement {
  let inner: Y.XmlElement | null = null
  for (let i = levels; i >= 1; i--) {
    const item = new Y.XmlElement('listItem')
    item.insert(0, inner ? [para(`item ${i}`), inner] : [para(`item ${i}`)])
    const list = new Y.XmlElement('bulletList')
    list.insert(0, [item])
    inner = list
  }
  return inner!
}

function quotes(levels: number, text: string): Y.XmlElement {
  let node = para(text)
  for (let i = 0; i < levels; i++) {
    const q = new Y.XmlElement('blockquote')
    q.insert(0, [node])
    node = q
  }
  return node
}

const texts = (n: PmNode): string[] => (n.text !== undefined ? [n.text] : (n.content ?? []).flatMap(texts))

describe('deeply nested Markdown on a real server', () => {
  it("a person's 10-level outline read as Markdown, first paragraph changed and written back with its base keeps item 10 and the paragraph after the list", async () => {
    h = await startTandem({}, { api: false })
    const doc = 'outline'
    const ann = new Y.Doc()
    const p = h.provider('acme', doc, await token(doc, 'ann'), ann)
    await synced(p)
    const frag = ann.getXmlFragment('default')
    ann.transact(() => frag.insert(0, [para('Intro.'), outline(10), para('After the list.')]))
    const agent = await token(doc)
    await eventually(async () => expect((await call('GET', doc, agent)).body.content).toContain('After the list.'))
    const read = await call('GET', doc, agent)
    expect(read.body.content).toContain('item 10')
    const w = await call('PATCH', doc, agent, '', {
      format: 'markdown',
      content: read.body.content.replace('Intro.', 'Intro, edited.'),
      base: read.body.base,
    })
    expect(w.status).toBe(200)
    expect(w.body).toMatchObject({ applied: true, deleted: 0 })
    await eventually(() =>
      expect(texts(fragmentToPm(frag))).toEqual([
        'Intro, edited.',
        ...Array.from({ length: 10 }, (_, i) => `item ${i + 1}`),
        'After the list.',
      ]),
    )
    expect((await call('GET', doc, agent)).body.content).toBe(read.body.content.replace('Intro.', 'Intro, edited.'))
  })

  it('30 nested blockquotes read and written back unchanged delete nothing', async () => {
    h = await startTandem({}, { api: false })
    const doc = 'quotes'
    const ann = new Y.Doc()
    const p = h.provider('acme', doc, await token(doc, 'ann'), ann)
    await synced(p)
    ann.transact(() => ann.getXmlFragment('default').insert(0, [quotes(30, 'deep'), para('After.')]))
    const agent = await token(doc)
    await eventually(async () => expect((await call('GET', doc, agent)).body.content).toContain('After.'))
    const read = await call('GET', doc, agent)
    expect(read.body.content).toBe(`${'> '.repeat(30)}deep\n\nAfter.\n`)
    const w = await call('PATCH', doc, agent, '', {
      format: 'markdown',
      content: read.body.content,
      base: read.body.base,
    })
    expect(w.body).toMatchObject({ applied: false, inserted: 0, deleted: 0 })
    // The same Markdown into an empty document stores all 30 levels.
    const copy = await token('quotes-copy')
    const fresh = await call('PATCH', 'quotes-copy', copy, '', { format: 'markdown', content: read.body.content })
    expect(fresh.status).toBe(200)
    expect((await call('GET', 'quotes-copy', copy)).body.content).toBe(read.body.content)
  })

  it(`5,000 levels of ">" are refused with 422 naming the limit of ${MAX_DEPTH}, and nothing is stored`, async () => {
    h = await startTandem({}, { api: false })
    const agent = await token('too-deep')
    await call('PATCH', 'too-deep', agent, '', { format: 'markdown', content: 'Before.\n' })
    const w = await call('PATCH', 'too-deep', agent, '', {
      format: 'markdown',
      content: `${'>'.repeat(5000)} x\n\nAfter.\n`,
    })
    expect(w.status).toBe(422)
    expect(w.body.code).toBe('too_deep')
    expect(w.body.error).toContain(String(MAX_DEPTH))
    expect((await call('GET', 'too-deep', agent)).body.content).toBe('Before.\n')
    // ProseMirror JSON one level past the limit is refused the same way; 5,000 levels already at
    // the body's JSON depth gate. (Written out: JSON.stringify would recurse.)
    const pmDoc = (levels: number) =>
      `{"format":"prosemirror","content":{"type":"doc","content":[${'{"type":"blockquote","content":['.repeat(levels)}{"type":"paragraph","content":[{"type":"text","text":"x"}]}${']}'.repeat(levels)}]}}`
    const j = await call('PATCH', 'too-deep', agent, '', pmDoc(MAX_DEPTH))
    expect(j.status).toBe(422)
    expect(j.body.code).toBe('too_deep')
    expect(j.body.error).toContain(String(MAX_DEPTH))
    expect((await call('PATCH', 'too-deep', agent, '', pmDoc(5000))).body).toMatchObject({
      code: 'bad_request',
      error: expect.stringContaining('JSON body nested deeper'),
    })
    expect((await call('GET', 'too-deep', agent)).body.content).toBe('Before.\n')
  })

  it(`a document nested exactly ${MAX_DEPTH} deep reads and writes back whole, as Markdown and as ProseMirror JSON`, async () => {
    h = await startTandem({}, { api: false })
    const doc = 'at-limit'
    const ann = new Y.Doc()
    const p = h.provider('acme', doc, await token(doc, 'ann'), ann)
    await synced(p)
    ann.transact(() => ann.getXmlFragment('default').insert(0, [quotes(MAX_DEPTH - 1, 'at the limit')]))
    const agent = await token(doc)
    await eventually(async () => expect((await call('GET', doc, agent)).body.content).toContain('at the limit'))
    const md = await call('GET', doc, agent)
    expect(md.body.content).toBe(`${'> '.repeat(MAX_DEPTH - 1)}at the limit\n`)
    expect(
      (await call('PATCH', doc, agent, '', { format: 'markdown', content: md.body.content, base: md.body.base })).body,
    ).toMatchObject({ applied: false })
    const pm = await call('GET', doc, agent, 'format=prosemirror')
    expect(
      (await call('PATCH', doc, agent, '', { format: 'prosemirror', content: pm.body.content, base: pm.body.base }))
        .body,
    ).toMatchObject({ applied: false })
    // Both forms write the whole depth into an empty document; one level more is refused.
    for (const [copy, body] of [
      ['md-copy', { format: 'markdown', content: md.body.content }],
      ['pm-copy', { format: 'prosemirror', content: pm.body.content }],
    ] as const) {
      const t = await token(copy)
      expect((await call('PATCH', copy, t, '', body)).status).toBe(200)
      expect((await call('GET', copy, t)).body.content).toBe(md.body.content)
    }
    const over = await call('PATCH', 'md-over', await token('md-over'), '', {
      format: 'markdown',
      content: `> ${md.body.content}`,
    })
    expect(over).toMatchObject({ status: 422, body: { code: 'too_deep' } })
  })

  it('a document a person nested past the limit is refused whole on read, as Markdown and as ProseMirror JSON, never cut', async () => {
    h = await startTandem({}, { api: false })
    const doc = 'deep-read'
    const ann = new Y.Doc()
    const p = h.provider('acme', doc, await token(doc, 'ann'), ann)
    await synced(p)
    ann.transact(() => ann.getXmlFragment('default').insert(0, [para('Top.'), quotes(MAX_DEPTH, 'too deep')]))
    const agent = await token(doc)
    await eventually(async () => expect((await call('GET', doc, agent)).status).toBe(422))
    for (const format of ['markdown', 'prosemirror']) {
      const r = await call('GET', doc, agent, `format=${format}`)
      expect(r.status).toBe(422)
      expect(r.body).toMatchObject({ code: 'too_deep' })
      expect(r.body.error).toContain(String(MAX_DEPTH))
    }
    // A write to it is refused too, and leaves it whole.
    const before = ann.getXmlFragment('default').toString()
    const w = await call('PATCH', doc, agent, '', { format: 'markdown', content: 'Top.\n' })
    expect(w.status).toBe(422)
    expect(w.body.code).toBe('too_deep')
    expect((await call('GET', doc, agent, 'format=text')).body.content).toBe('Top.\ntoo deep')
    expect(ann.getXmlFragment('default').toString()).toBe(before)
  })
})
