// The content REST route on a real server over LevelDB and PostgreSQL: an agent reads a document
// as Markdown, ProseMirror JSON or text and writes it back the same way; the change is the
// smallest one, merged by the CRDT with what people typed since the agent's read, durable,
// broadcast, attributed, and undone exactly by a rollback of the agent's edits.
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let backend: Backend
afterEach(async () => h?.close())

const AI = { source: 'ai', model: 'm1' }
type Json = Record<string, any>

let clock = Date.now()
async function open(overrides: Json = {}) {
  clock = Date.now()
  h = await startTandem({ ...(await backend.overrides()), ...overrides }, { api: false, now: () => clock })
}

const token = async (doc: string, sub = 'agent', attr?: Record<string, string>, acc: 'r' | 'rw' = 'rw') =>
  (await mintToken(h.server.deps.keys, { org: 'acme', doc, sub, acc, ttlSec: 600, ...(attr ? { attr } : {}) })).token

async function call(method: string, doc: string, tok: string, query = '', body?: unknown, name = 'content') {
  const res = await fetch(`${h.httpUrl}/${name}/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`, {
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

const paragraphs = (d: Y.Doc) =>
  (fragmentToPm(d.getXmlFragment('default')).content ?? []).map((p) => (p.content ?? []).map((t) => t.text).join(''))

const MARKDOWN = `# Plan

Some **bold**, *italic*, ~~struck~~ and \`code\` with a [link](https://example.com).

- one
- two
  - nested
- three

1. first
2. second

> quoted

\`\`\`js
let x = 1
\`\`\`

| name | qty |
| ---- | --- |
| pen  | 2   |

- [ ] todo
- [x] done

one\\
two
`

describe.each(BACKENDS)('content REST on $name', (b) => {
  beforeAll(() => {
    backend = b
  })

  it('Markdown written then read comes back the same, as ProseMirror JSON too, and a rewrite of it changes nothing', async () => {
    await open()
    const t = await token('plan')
    const w = await call('PATCH', 'plan', t, '', { format: 'markdown', content: MARKDOWN })
    expect(w.status).toBe(200)
    expect(w.body).toMatchObject({ applied: true, root: 'default' })
    expect(w.body.inserted).toBeGreaterThan(50)
    const md = await call('GET', 'plan', t, 'format=markdown')
    expect(md.body.content).toBe(MARKDOWN)
    expect(md.body).toMatchObject({ format: 'markdown', root: 'default', base: w.body.base })
    const again = await call('PATCH', 'plan', t, '', {
      format: 'markdown',
      content: md.body.content,
      base: md.body.base,
    })
    expect(again.body).toEqual({ applied: false, inserted: 0, deleted: 0, base: md.body.base, root: 'default' })
    const pm = await call('GET', 'plan', t, 'format=prosemirror')
    expect(pm.body.content.type).toBe('doc')
    expect(pm.body.content.content[0]).toEqual({
      type: 'heading',
      attrs: { level: 1 },
      content: [{ type: 'text', text: 'Plan' }],
    })
    const kinds = (pm.body.content.content as Json[]).map((n) => n.type)
    expect(kinds).toEqual([
      'heading',
      'paragraph',
      'bulletList',
      'orderedList',
      'blockquote',
      'codeBlock',
      'table',
      'taskList',
      'paragraph',
    ])
    const text = await call('GET', 'plan', t, 'format=text')
    expect(text.body.content.split('\n')[0]).toBe('Plan')
  })

  it('a one-word change is an update of a few dozen bytes, not the document', async () => {
    await open()
    const t = await token('words')
    const long =
      Array.from({ length: 200 }, (_, i) => `Paragraph ${i} says something about the plan and its parts.`).join(
        '\n\n',
      ) + '\n'
    await call('PATCH', 'words', t, '', { format: 'markdown', content: long })
    const read = await call('GET', 'words', t)
    const w = await call('PATCH', 'words', t, '', {
      format: 'markdown',
      content: read.body.content.replace('Paragraph 120 says', 'Paragraph 120 claims'),
      base: read.body.base,
    })
    expect(w.body).toMatchObject({ applied: true })
    const log: number[] = []
    for await (const e of h.server.store.readLog('acme/words/main')) log.push(e.update.length)
    expect(log).toHaveLength(2)
    expect(log[0]).toBeGreaterThan(10_000)
    expect(log[1]).toBeLessThan(80)
  })

  it("an agent's write from an older base keeps what a person typed meanwhile, in every client and after a restart", async () => {
    await open()
    const doc = 'merge'
    const agent = await token(doc, 'agent', AI)
    await call('PATCH', doc, agent, '', {
      format: 'markdown',
      content: 'First paragraph.\n\nSecond paragraph.\n\nThird paragraph.\n',
    })
    const read = await call('GET', doc, agent)
    // A person types into paragraphs 1 and 3 after the agent's read, and adds a fourth.
    const ann = new Y.Doc()
    const p = h.provider('acme', doc, await token(doc, 'ann'), ann)
    await synced(p)
    const frag = ann.getXmlFragment('default')
    const textOf = (i: number) => (frag.get(i) as Y.XmlElement).get(0) as Y.XmlText
    ann.transact(() => {
      textOf(0).insert(0, 'Ann: ')
      textOf(2).insert(textOf(2).length - 1, ' and more')
      const p4 = new Y.XmlElement('paragraph')
      p4.insert(0, [new Y.XmlText('Fourth, by Ann.')])
      frag.insert(3, [p4])
    })
    await eventually(async () => expect((await call('GET', doc, agent)).body.content).toContain('Fourth'))
    // The agent rewrites paragraph 2 from what it read before all of that.
    const w = await call('PATCH', doc, agent, '', {
      format: 'markdown',
      content: read.body.content.replace('Second paragraph.', 'Second paragraph, by the agent.'),
      base: read.body.base,
    })
    expect(w.status).toBe(200)
    expect(w.body.applied).toBe(true)
    const want = [
      'Ann: First paragraph.',
      'Second paragraph, by the agent.',
      'Third paragraph and more.',
      'Fourth, by Ann.',
    ]
    await eventually(() => expect(paragraphs(ann)).toEqual(want))
    expect((await call('GET', doc, agent)).body.content).toBe(want.join('\n\n') + '\n')
    // The new base names the agent's view (its read plus its write): writing it again is no change.
    const mine = read.body.content.replace('Second paragraph.', 'Second paragraph, by the agent.')
    expect(
      (await call('PATCH', doc, agent, '', { format: 'markdown', content: mine, base: w.body.base })).body.applied,
    ).toBe(false)
    await h.restart()
    expect((await call('GET', doc, agent)).body.content).toBe(want.join('\n\n') + '\n')
  })

  it("the agent's write is in activity under its sub and attributions, and a rollback of them undoes exactly it", async () => {
    await open()
    const doc = 'undo'
    const ann = await token(doc, 'ann')
    await call('PATCH', doc, ann, '', { format: 'markdown', content: 'Keep this.\n\nAnd this.\n' })
    const agent = await token(doc, 'agent', AI)
    const read = await call('GET', doc, agent)
    await call('PATCH', doc, agent, '', {
      format: 'markdown',
      content: 'Keep this, agent.\n\nAnd this.\n\nNew from the agent.\n',
      base: read.body.base,
    })
    await call('PATCH', doc, ann, '', {
      format: 'markdown',
      content: 'Keep this, agent.\n\nAnd this, Ann.\n\nNew from the agent.\n',
    })
    const act = await call('GET', doc, ann, 'order=asc&group=false', undefined, 'activity')
    expect(act.body.entries.map((e: Json) => [e.by, e.attributes])).toEqual([
      ['ann', undefined],
      ['agent', AI],
      ['ann', undefined],
    ])
    const rb = await call('POST', doc, ann, '', { from: 0, to: Date.now(), attr: { source: 'ai' } }, 'rollback')
    expect(rb.body.applied).toBe(true)
    expect((await call('GET', doc, ann)).body.content).toBe('Keep this.\n\nAnd this, Ann.\n')
  })

  it('ProseMirror JSON in either vocabulary round-trips; a text root takes a text diff', async () => {
    await open()
    const t = await token('vocab')
    const basic = {
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Basic' }] },
        {
          type: 'bullet_list',
          content: [
            {
              type: 'list_item',
              content: [{ type: 'paragraph', content: [{ type: 'text', text: 'a', marks: [{ type: 'strong' }] }] }],
            },
          ],
        },
        { type: 'code_block', attrs: { language: 'sh' }, content: [{ type: 'text', text: 'ls' }] },
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'x' },
            { type: 'hard_break' },
            { type: 'text', text: 'y', marks: [{ type: 'em' }] },
          ],
        },
      ],
    }
    expect((await call('PATCH', 'vocab', t, '', { format: 'prosemirror', content: basic })).status).toBe(200)
    expect((await call('GET', 'vocab', t, 'format=prosemirror')).body.content).toEqual(basic)
    const md = (await call('GET', 'vocab', t)).body
    expect(md.content).toBe('## Basic\n\n- **a**\n\n```sh\nls\n```\n\nx\\\n*y*\n')
    // Markdown into a snake_case document writes snake_case names.
    await call('PATCH', 'vocab', t, '', { format: 'markdown', content: md.content + '\n1. one\n', base: md.base })
    const after = (await call('GET', 'vocab', t, 'format=prosemirror')).body.content
    expect(after.content.at(-1)).toEqual({
      type: 'ordered_list',
      attrs: { order: 1 },
      content: [{ type: 'list_item', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'one' }] }] }],
    })

    const plain = await call('PATCH', 'notes', await token('notes'), '', { format: 'text', content: 'hello world' })
    expect(plain.body).toMatchObject({ applied: true, root: 'text', inserted: 11 })
    const nt = await token('notes')
    const read = await call('GET', 'notes', nt, 'format=text')
    expect(read.body).toMatchObject({ root: 'text', content: 'hello world' })
    const edit = await call('PATCH', 'notes', nt, '', {
      format: 'text',
      content: 'hello brave world',
      base: read.body.base,
    })
    expect(edit.body).toMatchObject({ applied: true, inserted: 6, deleted: 0 })
  })

  it('a base older than the retained history is 409 naming the oldest valid base', async () => {
    await open({ historyRetentionDays: 1 })
    const t = (
      await mintToken(h.server.deps.keys, { org: 'acme', doc: 'old', sub: 'agent', acc: 'rw', ttlSec: 10 * 24 * 3600 })
    ).token // outlives the clock's jump
    await call('PATCH', 'old', t, '', { format: 'markdown', content: 'One.\n' })
    const first = (await call('GET', 'old', t)).body
    await call('PATCH', 'old', t, '', { format: 'markdown', content: 'One.\n\nTwo.\n', base: first.base })
    await h.server.registry.loaded('acme/old/main')!.compact() // the log may be folded up to the snapshot
    clock += 2 * 24 * 3600 * 1000
    const late = await call('PATCH', 'old', t, '', { format: 'markdown', content: 'One, late.\n', base: first.base })
    expect(late.status).toBe(409)
    expect(late.body).toMatchObject({ code: 'conflict', oldest_base: expect.stringMatching(/^2\.[A-Za-z0-9_-]{16}$/) })
    expect(late.body.error).toBe(
      `base is older than the retained history: the oldest valid base is ${late.body.oldest_base}; read the document again`,
    )
    expect((await call('GET', 'old', t)).body.content).toBe('One.\n\nTwo.\n')
    expect(
      (
        await call('PATCH', 'old', t, '', {
          format: 'markdown',
          content: 'One, late.\n\nTwo.\n',
          base: late.body.oldest_base,
        })
      ).body.applied,
    ).toBe(true)
  })

  it('refuses bad input with its reason and applies nothing', async () => {
    await open({ maxRestBodyBytes: 64 * 1024 })
    const t = await token('bad')
    await call('PATCH', 'bad', t, '', { format: 'markdown', content: 'Safe.\n' })
    const before = (await call('GET', 'bad', t)).body
    const refusals: [unknown, number, RegExp][] = [
      ['{"format": "markdown", "content": ', 400, /not valid JSON/],
      [{ format: 'html', content: 'x' }, 400, /format must be one of/],
      [{ format: 'markdown' }, 400, /content is required/],
      [{ format: 'markdown', content: 42 }, 400, /content must be a string/],
      [
        { format: 'prosemirror', content: { type: 'doc', content: [{ type: 'blink', content: [] }] } },
        422,
        /unknown node type "blink"/,
      ],
      [
        {
          format: 'prosemirror',
          content: {
            type: 'doc',
            content: [{ type: 'paragraph', content: [{ type: 'text', text: 'x', marks: [{ type: 'glow' }] }] }],
          },
        },
        422,
        /unknown mark type "glow"/,
      ],
      [{ format: 'prosemirror', content: { type: 'paragraph' } }, 422, /ProseMirror JSON document/],
      [{ format: 'markdown', content: 'x', base: 'yesterday' }, 400, /not a base/],
      [{ format: 'markdown', content: 'x', base: '999999' }, 400, /names no document/],
      [{ format: 'text', content: 'x', root: 'default' }, 422, /XML fragment/],
      [{ format: 'markdown', content: 'x'.repeat(70 * 1024) }, 413, /./],
    ]
    for (const [body, status, reason] of refusals) {
      const r = await call('PATCH', 'bad', t, '', body)
      expect([r.status, r.body.error]).toEqual([status, expect.stringMatching(reason)])
    }
    expect((await call('GET', 'bad', t)).body).toEqual(before)
    // a map root is neither text nor XML
    const d = new Y.Doc()
    d.getMap('meta').set('k', 'v')
    await fetch(`${h.httpUrl}/ydoc/v1/acme/bad?yauth=${t}`, {
      method: 'PATCH',
      body: Y.encodeStateAsUpdate(d),
      headers: { 'content-type': 'application/octet-stream' },
    })
    expect((await call('GET', 'bad', t, 'root=meta')).status).toBe(422)
    expect((await call('PATCH', 'bad', t, '', { format: 'markdown', content: 'x', root: 'meta' })).status).toBe(422)
    const r = await token('bad', 'reader', undefined, 'r')
    expect((await call('PATCH', 'bad', r, '', { format: 'markdown', content: 'x' })).status).toBe(403)
    expect((await call('GET', 'bad', t, 'format=docx')).status).toBe(400)
    // Malformed Markdown is still text: it is written as such.
    expect(
      (await call('PATCH', 'bad', t, '', { format: 'markdown', content: '**unclosed [link(\n', base: before.base }))
        .status,
    ).toBe(200)
    expect((await call('GET', 'bad', t)).body.content).toBe('\\*\\*unclosed \\[link(\n')
  })
})
