// A document past the in-loop bound is kept warm in the content worker: after whole writes,
// targeted edits, a person typing over the socket, another write path (PATCH /ydoc) and a
// restart, every read it answers (whole Markdown, ProseMirror, an outline, a section) is what a
// cold reading of the same state gives, on both storage modes.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { readContent } from '../../src/content/formats.js'
import { buildParts } from '../../src/content/parts-model.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>
const DOC = 'big'

async function call(method: 'GET' | 'PATCH', query = '', body?: unknown) {
  const tok = await h.token('acme', DOC)
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${DOC}?yauth=${tok}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

async function stateNow(): Promise<Uint8Array> {
  const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/${DOC}?yauth=${await h.token('acme', DOC)}`, {
    headers: { accept: 'application/octet-stream' },
  })
  return new Uint8Array(await res.arrayBuffer())
}

/** Every read the server answers equals a cold reading of the state it holds. */
async function agreesWithCold(prosemirror = false): Promise<string> {
  const state = await stateNow()
  const cold = buildParts(state, null)
  const markdown = cold.markdown
  const whole = await call('GET', 'format=markdown')
  expect(whole.body.content).toBe(markdown)
  if (prosemirror)
    expect((await call('GET', 'format=prosemirror')).body.content).toEqual(
      readContent(state, 'prosemirror', null).content,
    )
  const outline = await call('GET', 'view=outline')
  expect(outline.body).toMatchObject({ block_count: cold.blocks.length, chars: markdown.length })
  const mid = cold.blocks[Math.floor(cold.blocks.length / 2)]!
  const section = await call('GET', `view=section&blocks=${mid.id}`)
  expect(section.body).toMatchObject({ line: mid.line, end: mid.end })
  expect(section.body.content).toBe(
    markdown
      .split('\n')
      .slice(mid.line - 1, mid.end)
      .join('\n') + '\n',
  )
  return whole.body.base
}

const LARGE =
  Array.from({ length: 1300 }, (_, i) =>
    i % 25 === 0
      ? `## Part ${i}`
      : i % 7 === 0
        ? `- item ${i} of a list\n- another item ${i}`
        : `Paragraph ${i} with **bold** and *italic* words, long enough to pass the bound together with the rest.`,
  ).join('\n\n') + '\n'

describe.each(BACKENDS)('a document kept warm on $name', (b) => {
  it('answers what a cold reading gives after whole writes, targeted edits, socket typing, PATCH /ydoc and a restart', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    expect((await call('PATCH', '', { format: 'markdown', content: LARGE })).status).toBe(200)
    expect((await stateNow()).length).toBeGreaterThan(256 * 1024) // past the in-loop bound: kept warm
    let base = await agreesWithCold(true)

    // a whole write from the current base, then targeted edits from the base it gave
    const whole = await call('PATCH', '', {
      format: 'markdown',
      content: LARGE.replace('Paragraph 1 with', 'Paragraph one with'),
      base,
    })
    expect(whole.status).toBe(200)
    const edited = await call('PATCH', '', {
      base: whole.body.base,
      edits: [
        { old_text: 'Paragraph 2 with', new_text: 'Paragraph two with' },
        { insert: '## Appendix\n\nLast words.', at: 'end' },
        { delete: 'Part 25', section: true },
      ],
    })
    expect(edited.status).toBe(200)
    base = await agreesWithCold()
    expect((await call('GET', 'format=markdown')).body.content).toContain('Paragraph one with')

    // a person types over the socket; another write path changes it too
    const ann = new Y.Doc()
    const p = h.provider('acme', DOC, await h.token('acme', DOC), ann)
    await synced(p)
    const text = (ann.getXmlFragment('default').get(3) as Y.XmlElement).get(0) as Y.XmlText
    text.insert(0, 'Ann: ')
    await eventually(async () => expect((await call('GET', 'format=markdown')).body.content).toContain('Ann: '))
    const other = new Y.Doc()
    Y.applyUpdate(other, await stateNow())
    ;((other.getXmlFragment('default').get(5) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Bob: ')
    const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/${DOC}?yauth=${await h.token('acme', DOC)}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: Y.encodeStateAsUpdate(other, Y.encodeStateVector(ann)),
    })
    expect(res.status).toBe(200)
    await eventually(async () => expect((await call('GET', 'format=markdown')).body.content).toContain('Bob: '))
    // a targeted edit from the base before the typing lands beside it
    const late = await call('PATCH', '', {
      base,
      edits: [{ old_text: 'Paragraph 8 with', new_text: 'Paragraph eight with' }],
    })
    expect(late.status).toBe(200)
    await agreesWithCold()
    p.destroy()

    await h.restart()
    await agreesWithCold(true)
    expect((await call('GET', 'format=markdown')).body.content).toContain('Paragraph eight with')
  }, 120_000)
})
