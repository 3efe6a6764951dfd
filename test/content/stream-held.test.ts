// A stream under the approval mode grows a suggestion instead of the document: an agent's key
// (marked with `--agent`, another user's than the reviewer's) under required_no_override streams
// Markdown, every step revises the one suggestion its first step made, whose preview grows while
// the document (and the person's editor) stays as it was; a person accepts it and the document
// reads as one write of the text would. Cancelled with atomic the suggestion is withdrawn; decided
// mid-stream, the next chunk is refused.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { admin, call, grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, synced, type Harness } from '../helpers/tandem.js'

type Json = Record<string, any>
interface Minted {
  token: string
  rest_url: string
  org: string
  doc_id: string
}

let h: Harness
afterEach(async () => h?.close())

const SEED = '# Plan\n\nShip on Friday.\n'
const STREAMED = '## Notes\n\nOne **bold** line, then a list:\n\n- the build\n- the docs'

async function mint(key: string, docId: string): Promise<Minted> {
  const r = await call(h, 'POST', `/api/v0/assets/${docId}/collab-token`, { key, body: { access: 'edit' } })
  expect(r.status).toBe(200)
  return r.body as Minted
}

/** `route` of the minted token's document, as its holder calls it. */
const caller =
  (t: Minted) =>
  async (method: string, route: string, tail = '', body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.rest_url}/${route}/v1/${t.org}/${t.doc_id}${tail}?yauth=${t.token}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })
    return { status: res.status, body: (await res.json()) as Json }
  }

async function world(): Promise<{
  w: World
  person: ReturnType<typeof caller>
  agent: ReturnType<typeof caller>
  personToken: Minted
}> {
  h = await startTandem()
  const w = await makeWorld(h, 'held')
  for (const u of [w.users.owner, w.users.admin]) await grant(h, w.doc.id, u, 'edit')
  const personToken = await mint(w.keys.owner, w.doc.id)
  const person = caller(personToken)
  expect((await person('PATCH', 'content', '', { format: 'markdown', content: SEED })).status).toBe(200)
  const made = await admin(h.config, 'keys', 'create', '--user', w.users.admin, '--agent', '--json')
  const agent = caller(await mint((JSON.parse(made.out) as { key: string }).key, w.doc.id))
  const r = await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
    key: w.keys.owner,
    body: { tool: { tool_id: 'edit_document', approval_mode: 'required_no_override' } },
  })
  expect(r.status).toBe(200)
  return { w, person, agent, personToken }
}

describe('a stream under the approval mode', () => {
  it('grows one suggestion whose preview follows the text, never the document; accepted, it reads as one write', async () => {
    const { person, agent, personToken } = await world()
    const ydoc = new Y.Doc()
    const p = h.provider(personToken.org, personToken.doc_id, personToken.token, ydoc)
    await synced(p)
    const before = ydoc.getXmlFragment('default').toString()

    const started = await agent('POST', 'stream', '', { after: 'Plan' })
    expect(started.status).toBe(201)
    const id = started.body.stream as string
    let suggestion: string | undefined
    const previews: string[] = []
    for (const chunk of ['## Notes\n\nOne **bo', 'ld** line, then a list:\n\n- the ', 'build\n- the docs']) {
      const r = await agent('POST', 'stream', `/${id}`, { text: chunk })
      expect(r.status).toBe(200)
      suggestion ??= r.body.suggestion
      expect(r.body.suggestion).toBe(suggestion)
      const shown = await person('GET', 'suggestions', `/${suggestion}`)
      expect(shown.body.suggestion.status).toBe('open')
      previews.push(shown.body.preview as string)
      expect((await person('GET', 'content')).body.content).toBe(SEED)
    }
    expect(previews[0]).toBe('# Plan\n\n## Notes\n\nOne\n\nShip on Friday.\n')
    expect(previews[1]!.length).toBeGreaterThan(previews[0]!.length)
    const end = await agent('POST', 'stream', `/${id}/end`, {})
    expect(end.body).toMatchObject({ held: 0, suggestion })
    const final = (await person('GET', 'suggestions', `/${suggestion}`)).body.preview
    expect(final).toBe(`# Plan\n\n${STREAMED}\n\nShip on Friday.\n`)
    // one suggestion for the whole stream, and the person's editor never saw any of it
    const open = (await person('GET', 'suggestions', '', undefined)).body.suggestions as Json[]
    expect(open.map((s) => s.id)).toEqual([suggestion])
    expect(ydoc.getXmlFragment('default').toString()).toBe(before)

    const accepted = await person('POST', 'suggestions', `/${suggestion}/accept`, {})
    expect(accepted.status).toBe(200)
    expect((await person('GET', 'content')).body.content).toBe(final)
  })

  it('cancelled with atomic, its suggestion is withdrawn; decided mid-stream, the next chunk is refused', async () => {
    const { person, agent } = await world()
    const a = (await agent('POST', 'stream', '', { at: 'end', atomic: true })).body.stream as string
    const first = await agent('POST', 'stream', `/${a}`, { text: 'A held paragraph.\n\nAnd ' })
    const made = first.body.suggestion as string
    expect((await agent('DELETE', 'stream', `/${a}`)).status).toBe(200)
    expect((await person('GET', 'suggestions', `/${made}`)).body.suggestion.status).toBe('withdrawn')

    const b = (await agent('POST', 'stream', '', { at: 'end' })).body.stream as string
    const sb = (await agent('POST', 'stream', `/${b}`, { text: 'Another one.\n\nMore' })).body.suggestion as string
    expect((await person('POST', 'suggestions', `/${sb}/reject`, {})).status).toBe(200)
    const refused = await agent('POST', 'stream', `/${b}`, { text: ' text.\n\n' })
    expect(refused.status).toBe(409)
    expect(refused.body.error).toBe('the suggestion was rejected meanwhile')
    expect((await person('GET', 'content')).body.content).toBe(SEED)
  })
})
