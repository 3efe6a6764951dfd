// Targeted edits of the content route on a real server: str_replace on the Markdown view (once,
// or every occurrence), insert and delete by block id or heading, several edits applied together
// or not at all, the 409s that say what to do (no match with the closest text, several matches
// with their lines, text changed since the base), and a person's typing kept beside an edit.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>

async function call(doc: string, method: 'GET' | 'PATCH', query = '', body?: unknown, acc: 'r' | 'rw' = 'rw') {
  const tok = await h.token('acme', doc, { acc })
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const read = async (doc: string) =>
  (await call(doc, 'GET', 'format=markdown')).body as { content: string; base: string }
const outline = async (doc: string) => (await call(doc, 'GET', 'view=outline')).body
const edit = (doc: string, body: Json) => call(doc, 'PATCH', '', body)

async function logLength(doc: string): Promise<number> {
  let n = 0
  for await (const _ of h.server.store.readLog(`acme/${doc}/main`)) n++
  return n
}

/** A refusal: the status and code, and nothing written. */
async function refused(doc: string, body: Json, status: number, code: string) {
  const [entries, before] = [await logLength(doc), (await read(doc)).content]
  const r = await edit(doc, body)
  expect({ status: r.status, code: r.body.code }).toEqual({ status, code })
  expect(await logLength(doc)).toBe(entries)
  expect((await read(doc)).content).toBe(before)
  return r.body
}

async function seed(doc: string, content: string) {
  const r = await call(doc, 'PATCH', '', { format: 'markdown', content })
  expect(r.status).toBe(200)
  return r.body.base as string
}

const DOC = `# Plan

Ship on Friday, after the review.

## Risks

- the build
- the docs

## Later

Nothing yet.
`

describe.each(BACKENDS)('targeted edits on $name', (b) => {
  it('str_replace changes the one occurrence, answers the region as it now reads, and keeps every other block item', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d1', DOC)
    const before = await outline('d1')
    const r = await edit('d1', { edits: [{ old_text: 'Ship on Friday', new_text: 'Ship on Monday' }], base })
    expect(r.status).toBe(200)
    expect(r.body.applied).toBe(true)
    expect(r.body.changes).toHaveLength(1)
    expect(r.body.changes[0].content).toContain('Ship on Monday, after the review.')
    expect((await read('d1')).content).toBe(DOC.replace('Friday', 'Monday'))
    const after = await outline('d1')
    expect(after.entries.map((e: Json) => e.id)).toEqual(before.entries.map((e: Json) => e.id))
    expect(after.base).toBe(r.body.base)
  })

  it('replace_all changes every occurrence; without it several matches are 409 with their count and lines', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d2', 'A cat.\n\nAnother cat.\n\nNo dog.\n')
    const several = await refused('d2', { edits: [{ old_text: 'cat', new_text: 'dog' }], base }, 409, 'several_matches')
    expect(several).toMatchObject({ edit: 0, count: 2, lines: [1, 3] })
    const r = await edit('d2', { edits: [{ old_text: 'cat', new_text: 'dog', replace_all: true }], base })
    expect(r.status).toBe(200)
    expect((await read('d2')).content).toBe('A dog.\n\nAnother dog.\n\nNo dog.\n')
  })

  it('old_text that does not occur is 409 naming the closest line, and no edit of the call applies', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d3', DOC)
    const none = await refused(
      'd3',
      {
        edits: [
          { old_text: 'after the review', new_text: 'after QA' },
          { old_text: 'Absent words', new_text: 'All' },
        ],
        base,
      },
      409,
      'no_match',
    )
    expect(none).toMatchObject({ edit: 1 })
    const near = await refused(
      'd3',
      { edits: [{ old_text: 'Ship on Friday, after the reveiw', new_text: 'x' }], base },
      409,
      'no_match',
    )
    expect(near.closest).toMatchObject({ line: 3, text: 'Ship on Friday, after the review.' })
  })

  // A list inserted right after a list continues it, as in the whole Markdown: a loose list then.
  it('inserts before and after a block by id or heading, at the start and end, and deletes a block and a section, in one call', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d4', DOC)
    const ids = (await outline('d4')).entries.map((e: Json) => e.id)
    const r = await edit('d4', {
      base,
      edits: [
        { insert: 'Top note.', at: 'start' },
        { insert: '- the tests', after: ids[3] },
        { insert: 'Before risks.\n', before: 'Risks' },
        { delete: 'Later', section: true },
        { insert: 'The end.', at: 'end' },
      ],
    })
    expect(r.status).toBe(200)
    expect((await read('d4')).content).toBe(
      'Top note.\n\n# Plan\n\nShip on Friday, after the review.\n\nBefore risks.\n\n## Risks\n\n- the build\n\n- the docs\n\n- the tests\n\nThe end.\n',
    )
    const del = await edit('d4', { base: r.body.base, edits: [{ delete: ids[1] }] })
    expect(del.status).toBe(200)
    expect((await read('d4')).content).not.toContain('Ship on Friday')
  })

  it('a person typing in the same paragraph with the stock provider keeps every keystroke, and sees the edit live', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d5', DOC)
    const ann = new Y.Doc()
    const p = h.provider('acme', 'd5', await h.token('acme', 'd5'), ann)
    await synced(p)
    const para = ann.getXmlFragment('default').get(1) as Y.XmlElement
    const text = para.get(0) as Y.XmlText
    text.insert(text.length, ' Ann was here')
    await eventually(async () => expect((await read('d5')).content).toContain('Ann was here'))
    const r = await edit('d5', { edits: [{ old_text: 'Ship on Friday', new_text: 'Ship on Monday' }], base })
    expect(r.status).toBe(200)
    expect(r.body.changes[0].content).toContain('Ship on Monday, after the review. Ann was here')
    await eventually(() => expect(text.toString()).toBe('Ship on Monday, after the review. Ann was here'))
    p.destroy()
  })

  it('an edit from an old base whose own text was changed since is 409 changed_since_base; one elsewhere lands', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d6', DOC)
    const later = await edit('d6', { edits: [{ old_text: 'Friday', new_text: 'Tuesday' }], base })
    expect(later.status).toBe(200)
    const stale = await refused(
      'd6',
      { edits: [{ old_text: 'Ship on Friday', new_text: 'Ship on Monday' }], base },
      409,
      'changed_since_base',
    )
    expect(stale.now).toContain('Ship on Tuesday')
    const elsewhere = await edit('d6', { edits: [{ old_text: 'Nothing yet.', new_text: 'Plenty.' }], base })
    expect(elsewhere.status).toBe(200)
    expect((await read('d6')).content).toBe(DOC.replace('Friday', 'Tuesday').replace('Nothing yet.', 'Plenty.'))
  })

  it('mode suggest holds the edit as a suggestion with its hunks and changes nothing', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d7', DOC)
    const entries = await logLength('d7')
    const r = await edit('d7', { edits: [{ old_text: 'Nothing yet.', new_text: 'Plenty.' }], base, mode: 'suggest' })
    expect(r.status).toBe(202)
    expect(r.body).toMatchObject({ applied: false, base, suggestion: { status: 'open' } })
    expect(r.body.hunks.length).toBe(1)
    expect(await logLength('d7')).toBe(entries)
    expect((await read('d7')).content).toBe(DOC)
  })

  it('malformed edits are 400 naming the edit and field; overlapping edits are 400; a read-only token is 403', async () => {
    h = await startTandem(await b.overrides(), { api: false })
    const base = await seed('d8', DOC)
    const bad = async (body: Json, message: RegExp) => {
      const r = await edit('d8', body)
      expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: expect.stringMatching(message) })
    }
    await bad({ edits: 'x' }, /edits must be an array/)
    await bad({ edits: [] }, /edits is empty/)
    await bad({ edits: [{ old_text: 'a', new_text: 'b', extra: 1 }] }, /edits\[0\]: unknown field "extra"/)
    await bad({ edits: [{ old_text: '', new_text: 'b' }] }, /edits\[0\]\.old_text/)
    await bad({ edits: [{ insert: 'x' }] }, /exactly one of before, after/)
    await bad({ edits: [{ old_text: 'a', new_text: 'b' }], content: 'x', format: 'markdown' }, /not both/)
    await bad(
      {
        edits: [
          { old_text: 'Ship on', new_text: 'x' },
          { old_text: 'on Friday', new_text: 'y' },
        ],
        base,
      },
      /overlapping/,
    )
    const unknown = await edit('d8', { edits: [{ delete: 'Ship on Friday' }], base })
    expect({ status: unknown.status, error: unknown.body.error }).toEqual({
      status: 404,
      error: expect.stringMatching(/edits\[0\]\.delete: no heading reads/),
    })
    const ro = await call('d8', 'PATCH', '', { edits: [{ old_text: 'Ship', new_text: 'Sail' }] }, 'r')
    expect(ro.status).toBe(403)
  })
})
