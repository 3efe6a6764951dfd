// The three-way side of a content write, on a real server over LevelDB and PostgreSQL with a person
// typing through the stock y-websocket provider: an agent writes from an older base content that
// already holds what the person typed since (it read again, or copied it) and the text or block is
// in the document once, not twice; an identical insertion at another place is the agent's own and
// is kept. A document large enough that its edit is computed in a worker thread dedupes the same.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let backend: Backend
afterEach(async () => h?.close())

type Json = Record<string, any>
const token = async (doc: string, sub: string) =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub, acc: 'rw', ttlSec: 600 })).token

async function call(method: string, doc: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${await token(doc, 'agent')}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}
const read = async (doc: string) => (await call('GET', doc)).body as { content: string; base: string }
const write = (doc: string, content: string, base?: string) =>
  call('PATCH', doc, { format: 'markdown', content, ...(base ? { base } : {}) })

const paragraphs = (d: Y.Doc) =>
  (fragmentToPm(d.getXmlFragment('default')).content ?? []).map((p) => (p.content ?? []).map((t) => t.text).join(''))
const count = (s: string, part: string) => s.split(part).length - 1

/** A document of three paragraphs, the agent's read of it, and a person's live editor on it. */
async function setUp(doc: string) {
  await write(doc, 'First paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n')
  const before = await read(doc)
  const ann = new Y.Doc()
  await synced(h.provider('acme', doc, await token(doc, 'ann'), ann))
  const frag = ann.getXmlFragment('default')
  const textOf = (i: number) => (frag.get(i) as Y.XmlElement).get(0) as Y.XmlText
  /** what Ann does, then waits until the server has it */
  const type = async (change: () => void, shows: string) => {
    ann.transact(change)
    await eventually(async () => expect((await read(doc)).content).toContain(shows))
  }
  return { before, ann, frag, textOf, type }
}

describe.each(BACKENDS)('a content write that already holds what others wrote since its base, on $name', (b) => {
  beforeAll(() => {
    backend = b
  })
  const open = async () => {
    h = await startTandem(await backend.overrides(), { api: false })
  }

  it('text a person typed into a paragraph after the read, also in the write from that read, is there once', async () => {
    await open()
    const { before, ann, textOf, type } = await setUp('typed')
    // " late0" after "First" (fast-diff tells the agent's side as "late0 " one space on: the same insertion)
    await type(() => textOf(0).insert(5, ' late0'), 'late0')
    await type(() => textOf(2).insert(textOf(2).length - 1, ' late1'), 'late1')
    const w = await write(
      'typed',
      'First late0 paragraph.\n\nSecond paragraph, by the agent.\n\nThird paragraph late1.\n',
      before.base,
    )
    expect(w.status).toBe(200)
    const want = ['First late0 paragraph.', 'Second paragraph, by the agent.', 'Third paragraph late1.']
    expect((await read('typed')).content).toBe(want.join('\n\n') + '\n')
    await eventually(() => expect(paragraphs(ann)).toEqual(want))
  })

  it('what the agent copied while the person typed on is kept once: its insertion is part of what the person typed there', async () => {
    await open()
    const { before, textOf, type } = await setUp('typing')
    await type(() => textOf(1).insert(6, ' late0'), 'late0')
    await type(() => textOf(1).insert(12, ' late1'), 'late1')
    // the agent copied the paragraph when it held only " late0"
    expect(
      (await write('typing', 'First paragraph.\n\nSecond late0 paragraph.\n\nThird paragraph.\n', before.base)).status,
    ).toBe(200)
    expect((await read('typing')).content).toBe(
      'First paragraph.\n\nSecond late0 late1 paragraph.\n\nThird paragraph.\n',
    )
  })

  it('a block the person added after the read, also in the write from that read, is there once', async () => {
    await open()
    const { before, ann, frag, type } = await setUp('block')
    await type(() => {
      const p = new Y.XmlElement('paragraph')
      p.insert(0, [new Y.XmlText('Added by Ann.')])
      frag.insert(1, [p])
    }, 'Added by Ann.')
    const w = await write(
      'block',
      'First paragraph.\n\nAdded by Ann.\n\nSecond paragraph.\n\nThird paragraph, by the agent.\n',
      before.base,
    )
    expect(w.status).toBe(200)
    const want = ['First paragraph.', 'Added by Ann.', 'Second paragraph.', 'Third paragraph, by the agent.']
    expect((await read('block')).content).toBe(want.join('\n\n') + '\n')
    await eventually(() => expect(paragraphs(ann)).toEqual(want))
  })

  it('a suggestion made from the old base leaves out what the person typed since: accepted, it is there once', async () => {
    await open()
    const { before, textOf, type } = await setUp('held')
    await type(() => textOf(0).insert(5, ' late0'), 'late0')
    const post = async (path: string, sub: string, body: unknown) => {
      const res = await fetch(`${h.httpUrl}/suggestions/v1/acme/held${path}?yauth=${await token('held', sub)}`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      })
      return { status: res.status, body: (await res.json()) as Json }
    }
    const made = await post('', 'agent', {
      format: 'markdown',
      content: 'First late0 paragraph.\n\nSecond paragraph, by the agent.\n\nThird paragraph.\n',
      base: before.base,
    })
    expect(made.status).toBe(201)
    expect((await post(`/${made.body.suggestion.id}/accept`, 'ann', {})).status).toBe(200)
    expect((await read('held')).content).toBe(
      'First late0 paragraph.\n\nSecond paragraph, by the agent.\n\nThird paragraph.\n',
    )
  })

  it("the same text or block inserted at another place is the agent's own and is kept", async () => {
    await open()
    const { before, frag, textOf, type } = await setUp('elsewhere')
    await type(() => textOf(0).insert(5, ' late0'), 'late0')
    await type(() => {
      const p = new Y.XmlElement('paragraph')
      p.insert(0, [new Y.XmlText('Same block.')])
      frag.insert(1, [p])
    }, 'Same block.')
    // the agent did not see Ann's edits: it puts " late0" into the second paragraph and the same block at the end
    const w = await write(
      'elsewhere',
      'First paragraph.\n\nSecond late0 paragraph.\n\nThird paragraph.\n\nSame block.\n',
      before.base,
    )
    expect(w.status).toBe(200)
    const content = (await read('elsewhere')).content
    expect(content).toBe(
      'First late0 paragraph.\n\nSame block.\n\nSecond late0 paragraph.\n\nThird paragraph.\n\nSame block.\n',
    )
    expect(count(content, 'late0')).toBe(2)
  })
})

// The worker thread is the same on either storage: one backend is enough.
describe('a large content write that repeats what others inserted since its base, on leveldb', () => {
  it('a document over the in-loop limit (its edit computed in a worker thread) dedupes the same way', async () => {
    h = await startTandem({}, { api: false })
    const long =
      Array.from({ length: 1800 }, (_, i) =>
        `Paragraph ${i} ${'says something about the plan and its parts. '.repeat(3)}`.trim(),
      ).join('\n\n') + '\n'
    await write('large', long)
    const before = await read('large')
    const ann = new Y.Doc()
    await synced(h.provider('acme', 'large', await token('large', 'ann'), ann))
    expect(Y.encodeStateAsUpdate(ann).length).toBeGreaterThan(256 * 1024)
    ;((ann.getXmlFragment('default').get(1200) as Y.XmlElement).get(0) as Y.XmlText).insert(14, ' late0')
    // the room has it (a content read here would be a worker thread per poll)
    const roomText = () =>
      h.server.deps.docs.withDoc({ org: 'acme', doc: 'large' }, (d) =>
        ((d.getXmlFragment('default').get(1200) as Y.XmlElement).get(0) as Y.XmlText).toString(),
      )
    await eventually(async () => expect(await roomText()).toContain('late0'))
    const w = await write(
      'large',
      long
        .replace('Paragraph 1200 says', 'Paragraph 1200 late0 says')
        .replace('Paragraph 7 says', 'Paragraph 7 claims'),
      before.base,
    )
    expect(w.status).toBe(200)
    const content = (await read('large')).content
    expect(count(content, 'late0')).toBe(1)
    expect(content).toContain('Paragraph 7 claims')
  })
})
