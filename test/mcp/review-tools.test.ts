// read_comments, read_suggestion and withdraw_suggestion through the SDK's own Client on a real
// server: a document's threads with their state and whether their anchor still resolves, paged; a
// suggestion's hunks in Markdown; an author withdrawing their own suggestion and nobody else's.
// Each with the caller's own permission: view reads, edit is needed to withdraw, none sees nothing.
// Each permission is its own member's, granted once: a grant that drops refuses the user's tokens
// of that second, so a test that narrowed and widened one user's grant would race the clock.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/control/api-keys.js'
import { setThreadState } from '../../src/control/comments.js'
import { createUser } from '../../src/control/users.js'
import { setMember } from '../../src/control/workspaces.js'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
/** the author of the suggestions and of some comments (edit) */
let owner: Client
/** a member who may view the document */
let viewer: Client
/** a member who may edit it but did not write the suggestion */
let editor: Client
/** a member with no permission on it */
let nobody: Client

async function connect(key: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': key } } },
    ),
  )
  return client
}

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp-review')
  await grant(h, w.doc.id, w.users.owner, 'edit')
  await grant(h, w.doc.id, w.users.member, 'view')
  owner = await connect(w.keys.owner, 'owner-agent')
  viewer = await connect(w.keys.member, 'viewer-agent')
  editor = await connect(await memberWith('editor', 'edit'), 'editor-agent')
  nobody = await connect(await memberWith('nobody', 'none'), 'nobody-agent')
})
afterAll(async () => {
  await Promise.allSettled([owner, viewer, editor, nobody].map((c) => c?.close()))
  await h?.close()
})

/** A new member of the workspace with this grant on the document: their API key. */
async function memberWith(name: string, g: 'edit' | 'none'): Promise<string> {
  const { store } = h.server.deps.control
  const email = `${name}-mcp-review@example.com`
  await createUser(store, email, undefined, Date.now())
  await setMember(store, w.workspaceId, email, 'member')
  await grant(h, w.doc.id, email, g)
  return (await createApiKey(store, email, 'test', Date.now())).key
}

type Json = Record<string, any>
type Called = Awaited<ReturnType<Client['callTool']>>
const said = (r: Called) => ({ isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text })
/** The tool's answer: the structured content, checked to be the same JSON as the text. */
async function use(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: { asset_id: w.doc.id, ...args } })
  const { isError, text } = said(r)
  if (isError) throw new Error(text)
  expect(r.structuredContent).toEqual(JSON.parse(text))
  return r.structuredContent as Json
}
const edit = async (content: string) =>
  JSON.parse(
    said(await owner.callTool({ name: 'edit_document', arguments: { asset_id: w.doc.id, content } })).text,
  ) as Json

describe('read_comments over MCP', () => {
  it("reads a document's threads oldest first: state, the anchor's quote and whether it still resolves, comments; paged and filtered by state", async () => {
    await edit('Hello world.\n\nSecond paragraph.\n')
    const first = await use(viewer, 'comment', { text: 'Which world?', quote: 'world' })
    await use(owner, 'comment', { text: 'This one.', thread_id: first.thread_id })
    const general = await use(owner, 'comment', { text: 'A remark on the whole document.' })
    const third = await use(viewer, 'comment', { text: 'Fine now.', quote: 'Second' })
    await setThreadState(h.server.deps.control.store, third.thread_id, 'resolved', Date.now())
    // the first thread's paragraph goes: its anchor no longer resolves
    await edit('Second paragraph.\n')

    const all = await use(viewer, 'read_comments', {})
    expect(all.total).toBe(3)
    expect(all.next_offset).toBeUndefined()
    expect(
      all.threads.map((t: Json) => [t.thread_id, t.state, t.anchor, t.comments.map((c: Json) => [c.user_id, c.text])]),
    ).toEqual([
      [
        first.thread_id,
        'open',
        { quote: null, resolves: false },
        [
          [w.users.member, 'Which world?'],
          [w.users.owner, 'This one.'],
        ],
      ],
      [general.thread_id, 'open', null, [[w.users.owner, 'A remark on the whole document.']]],
      [third.thread_id, 'resolved', { quote: 'Second', resolves: true }, [[w.users.member, 'Fine now.']]],
    ])
    expect(all.threads[2].resolved_at).toEqual(expect.any(String))

    const page = await use(viewer, 'read_comments', { limit: 2 })
    expect([page.threads.length, page.next_offset]).toEqual([2, 2])
    expect(
      (await use(viewer, 'read_comments', { offset: page.next_offset })).threads.map((t: Json) => t.thread_id),
    ).toEqual([third.thread_id])
    expect(await use(viewer, 'read_comments', { state: 'resolved' })).toMatchObject({
      total: 1,
      threads: [{ thread_id: third.thread_id }],
    })
  })

  it('a caller with no permission on the document sees it as missing', async () => {
    const refused = said(await nobody.callTool({ name: 'read_comments', arguments: { asset_id: w.doc.id } }))
    expect(refused).toEqual({ isError: true, text: '404: Asset not found' })
  })
})

describe('read_suggestion and withdraw_suggestion over MCP', () => {
  let suggestionId = ''

  it("reads a suggestion's hunks with their before and after in Markdown, as a viewer may", async () => {
    const now = await use(owner, 'read_document', {})
    const held = JSON.parse(
      said(
        await owner.callTool({
          name: 'suggest_edit',
          arguments: { asset_id: w.doc.id, content: 'Second paragraph, revised.\n', base: now.base },
        }),
      ).text,
    ) as Json
    suggestionId = held.suggestion.id
    const shown = await use(viewer, 'read_suggestion', { suggestion_id: suggestionId })
    expect(shown.suggestion).toMatchObject({ id: suggestionId, status: 'open', by: w.users.owner })
    expect(shown.hunk_count).toBe(1)
    expect(shown.hunks).toEqual([
      { id: held.hunks[0], status: 'open', before: 'Second paragraph.\n', after: 'Second paragraph, revised.\n' },
    ])
    expect(
      said(
        await viewer.callTool({
          name: 'read_suggestion',
          arguments: { asset_id: w.doc.id, suggestion_id: 'no-such-suggestion' },
        }),
      ),
    ).toEqual({ isError: true, text: '404: no such suggestion' })
  })

  it("refuses to withdraw someone else's suggestion (it stays open), and a viewer's or a stranger's call", async () => {
    const withdraw = async (c: Client) =>
      said(
        await c.callTool({
          name: 'withdraw_suggestion',
          arguments: { asset_id: w.doc.id, suggestion_id: suggestionId },
        }),
      )
    expect(await withdraw(editor)).toEqual({
      isError: true,
      text: `403: only its author may withdraw a suggestion; this one is by ${w.users.owner}: a person reviews it`,
    })
    expect(await withdraw(viewer)).toEqual({
      isError: true,
      text: '403: you may only view this document: editing needs edit permission on it',
    })
    expect(await withdraw(nobody)).toEqual({ isError: true, text: '404: Asset not found' })
    expect((await use(viewer, 'read_suggestion', { suggestion_id: suggestionId })).suggestion.status).toBe('open')
  })

  it('its author withdraws it: withdrawn, the document unchanged; withdrawing again answers 409', async () => {
    const before = (await use(owner, 'read_document', {})).content
    const done = await use(owner, 'withdraw_suggestion', { suggestion_id: suggestionId })
    expect(done.suggestion).toMatchObject({ id: suggestionId, status: 'withdrawn', decided_by: w.users.owner })
    expect((await use(owner, 'read_document', {})).content).toBe(before)
    expect((await use(viewer, 'list_suggestions', { status: 'withdrawn' })).suggestions.map((s: Json) => s.id)).toEqual(
      [suggestionId],
    )
    expect(
      said(
        await owner.callTool({
          name: 'withdraw_suggestion',
          arguments: { asset_id: w.doc.id, suggestion_id: suggestionId },
        }),
      ),
    ).toEqual({
      isError: true,
      text: '409: the suggestion is already withdrawn',
    })
  })
})
