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

async function call(doc: string, method: 'GET' | 'PATCH', query = '', body?: unknown) {
  const tok = await h.token('acme', doc)
  const res = await fetch(`${h.httpUrl}/content/v1/acme/${doc}?yauth=${tok}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const read = async (doc: string) => (await call(doc, 'GET', 'format=markdown')).body as { content: string; base: string }
const outline = async (doc: string) => (await call(doc, 'GET', 'view=outline')).body
const edit = (doc: string, body: Json) => call(doc, 'PATCH', '', body)

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
})
