// MCP against a real server: the SDK's own Client, over Streamable HTTP (`/mcp` on the API listener)
// and over stdio (`tandem mcp`, a separate process), lists the tools and edits a document that a
// live y-websocket provider sees change; the edit is attributed to the key's user with `source:
// mcp` and the client's name; a tool the workspace's registry disables is not listed; a bad key is
// refused.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import { fragmentToPm } from '../../src/content/fragment-read.js'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { seedDemo } from '../../src/demo/world.js'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
const clients: Client[] = []

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp')
  for (const u of [w.users.owner, w.users.admin, w.users.member]) await grant(h, w.doc.id, u, 'edit')
})
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()))
  await h?.close()
})

const apiUrl = () => `http://127.0.0.1:${h.server.apiPort}`

async function httpClient(key: string, name = 'test-agent'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`/mcp?workspace=${w.workspaceId}`, apiUrl()), {
    requestInit: { headers: { 'x-api-key': key } },
  })
  await client.connect(transport)
  clients.push(client)
  return client
}

type Json = Record<string, any>
const result = (r: Awaited<ReturnType<Client['callTool']>>): Json => {
  const first = (r.content as { type: string; text: string }[])[0]!
  if (r.isError) throw new Error(first.text)
  return JSON.parse(first.text) as Json
}

/** A person's live editor on the world's document. */
async function liveEditor(): Promise<Y.Doc> {
  const { token } = await mintToken(h.server.deps.keys, {
    org: w.workspaceId,
    doc: w.doc.id,
    sub: 'person',
    acc: 'rw',
    ttlSec: 600,
  })
  const doc = new Y.Doc()
  await synced(h.provider(w.workspaceId, w.doc.id, token, doc))
  return doc
}
const texts = (d: Y.Doc) =>
  (fragmentToPm(d.getXmlFragment('default')).content ?? []).map((p) => (p.content ?? []).map((t) => t.text).join(''))

describe('MCP over Streamable HTTP', () => {
  it('lists the tools, reads a document with its base and edits it; a live editor sees the edit, attributed to the MCP client', async () => {
    const client = await httpClient(w.keys.owner)
    const names = (await client.listTools()).tools.map((t) => t.name).sort()
    expect(names).toEqual([
      'comment',
      'edit_document',
      'insert_rows',
      'list_databases',
      'list_suggestions',
      'read_comments',
      'read_document',
      'read_suggestion',
      'read_table',
      'search_documents',
      'suggest_edit',
      'withdraw_suggestion',
    ])
    expect(result(await client.callTool({ name: 'search_documents', arguments: {} })).documents).toEqual([
      { asset_id: w.doc.id, title: w.doc.title },
    ])

    const person = await liveEditor()
    const first = result(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: 'Hello.\n\nWorld.\n' },
      }),
    )
    expect(first).toMatchObject({ applied: true })
    await eventually(() => expect(texts(person)).toEqual(['Hello.', 'World.']))
    const read = result(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } }))
    expect(read).toMatchObject({ format: 'markdown', content: 'Hello.\n\nWorld.\n', base: first.base })
    // The person types meanwhile; the agent's edit from its older read keeps it.
    ;((person.getXmlFragment('default').get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Oh. ')
    await eventually(async () =>
      expect(
        result(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } })).content,
      ).toContain('Oh.'),
    )
    const edit = result(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: 'Hello.\n\nWide world.\n', base: read.base },
      }),
    )
    expect(edit.applied).toBe(true)
    await eventually(() => expect(texts(person)).toEqual(['Oh. Hello.', 'Wide world.']))

    const { token } = await mintToken(h.server.deps.keys, {
      org: w.workspaceId,
      doc: w.doc.id,
      sub: 'reader',
      acc: 'r',
      ttlSec: 600,
    })
    const act = (await (
      await fetch(`${h.httpUrl}/activity/v1/${w.workspaceId}/${w.doc.id}?yauth=${token}&group=false&order=asc`)
    ).json()) as Json
    expect(act.entries.map((e: Json) => [e.by, e.attributes])).toEqual([
      [w.users.owner, { source: 'mcp', mcp_client: 'test-agent' }],
      ['person', undefined],
      [w.users.owner, { source: 'mcp', mcp_client: 'test-agent' }],
    ])
  })

  it('suggest_edit holds an edit for review; list_suggestions shows it; the document is unchanged', async () => {
    const client = await httpClient(w.keys.owner)
    const before = result(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } }))
    const held = result(
      await client.callTool({
        name: 'suggest_edit',
        arguments: { asset_id: w.doc.id, content: `${before.content}\nSuggested line.\n`, base: before.base },
      }),
    )
    expect(held).toMatchObject({
      applied: false,
      suggestion: { status: 'open', attributions: { source: 'mcp', mcp_client: 'test-agent' } },
    })
    expect(held.hunks).toHaveLength(1)
    expect(result(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } })).content).toBe(
      before.content,
    )
    const listed = result(
      await client.callTool({ name: 'list_suggestions', arguments: { asset_id: w.doc.id, status: 'open' } }),
    )
    expect(listed.suggestions.map((s: Json) => s.id)).toContain(held.suggestion.id)
  })

  it('comments on the document anchored to a quote', async () => {
    const client = await httpClient(w.keys.member)
    const c = result(
      await client.callTool({
        name: 'comment',
        arguments: { asset_id: w.doc.id, text: 'Which world?', quote: 'world' },
      }),
    )
    expect(c).toMatchObject({ anchored: true })
    const content = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}&include_comments=true`, {
      key: w.keys.member,
    })
    const thread = (content.body as Json).comments.find((t: Json) => t.id === c.thread_id)
    expect(thread.comments[0]).toMatchObject({ text: 'Which world?', user_id: w.users.member })
    expect(thread.data.anchor.text).toBe('world')
  })

  it("a tool the workspace's registry disables is not listed; a caller's rights still rule the rest", async () => {
    const patch = await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
      key: w.keys.owner,
      body: { tool: { tool_id: 'insert_rows', enabled: false } },
    })
    expect(patch.status).toBe(200)
    const member = await httpClient(w.keys.member)
    expect((await member.listTools()).tools.map((t) => t.name)).not.toContain('insert_rows')
    // A member who may only view the document: the tool says so instead of editing.
    await grant(h, w.doc.id, w.users.member, 'view')
    const refused = await member.callTool({
      name: 'edit_document',
      arguments: { asset_id: w.doc.id, content: 'Gone.\n' },
    })
    await grant(h, w.doc.id, w.users.member, 'edit')
    expect(refused.isError).toBe(true)
    expect((refused.content as { text: string }[])[0]!.text).toMatch(/^403: /)
  })

  it('refuses a bad key before any session, and a session id presented with another key', async () => {
    await expect(httpClient('tk_not-a-key')).rejects.toThrow(/401|Invalid API key/)
    const noKey = await fetch(new URL('/mcp', apiUrl()), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(noKey.status).toBe(401)
    const owner = await httpClient(w.keys.owner)
    const sid = (owner.transport as StreamableHTTPClientTransport).sessionId!
    const stolen = await fetch(new URL(`/mcp?workspace=${w.workspaceId}`, apiUrl()), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': w.keys.admin,
        'mcp-session-id': sid,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(stolen.status).toBe(404)
  })
})

describe('MCP tables', () => {
  it('read_table reads rows with a PostgREST query and insert_rows inserts them, in the demo database', async () => {
    const demo = await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))
    const client = new Client({ name: 'table-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`/mcp?workspace=${demo.workspaceId}`, apiUrl()), {
        requestInit: { headers: { 'x-api-key': demo.apiKey } },
      }),
    )
    clients.push(client)
    let read: Awaited<ReturnType<Client['callTool']>> | undefined
    // the database may still be starting (503 with Retry-After): the tool says so, the agent asks again
    await eventually(async () => {
      read = await client.callTool({
        name: 'read_table',
        arguments: { asset_id: DEMO_DATABASE_ID, table: 'customers', query: 'select=id,name&order=id.asc&limit=2' },
      })
      expect(read.isError).toBeFalsy()
    }, 30_000)
    const rows = result(read!).data as Json[]
    expect(rows).toHaveLength(2)
    expect(Object.keys(rows[0]!).sort()).toEqual(['id', 'name'])
    const inserted = result(
      await client.callTool({
        name: 'insert_rows',
        arguments: {
          asset_id: DEMO_DATABASE_ID,
          table: 'customers',
          rows: [{ id: 999_001, name: 'Agent Smith', email: 'agent@example.com' }],
        },
      }),
    )
    expect(inserted.data).toEqual([expect.objectContaining({ id: 999_001, name: 'Agent Smith' })])
    const back = result(
      await client.callTool({
        name: 'read_table',
        arguments: { asset_id: DEMO_DATABASE_ID, table: 'customers', query: 'id=eq.999001' },
      }),
    )
    expect(back.data.map((r: Json) => r.email)).toEqual(['agent@example.com'])
    const refused = await client.callTool({
      name: 'read_table',
      arguments: { asset_id: DEMO_DATABASE_ID, table: 'customers', query: 'id=eq.1;drop table customers' },
    })
    expect(refused.isError).toBe(true)
  }, 60_000)
})

describe('MCP over stdio (tandem mcp)', () => {
  it('a separate process relays the SDK client to the server: it lists the tools and edits the document', async () => {
    const person = await liveEditor()
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['bin/tandem.js', 'mcp', '--api-url', apiUrl(), '--workspace', w.workspaceId],
      env: { PATH: process.env.PATH ?? '', TANDEM_API_KEY: w.keys.admin },
      stderr: 'pipe',
    })
    const client = new Client({ name: 'desktop-agent', version: '2.0.0' })
    await client.connect(transport)
    clients.push(client)
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('edit_document')
    const read = result(await client.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } }))
    const edit = result(
      await client.callTool({
        name: 'edit_document',
        arguments: { asset_id: w.doc.id, content: `${read.content}\nFrom the desktop.\n`, base: read.base },
      }),
    )
    expect(edit.applied).toBe(true)
    await eventually(() => expect(texts(person).at(-1)).toBe('From the desktop.'))
  })

  it('without an API key it says so and exits 2', async () => {
    const { spawnSync } = await import('node:child_process')
    const r = spawnSync(process.execPath, ['bin/tandem.js', 'mcp', '--api-url', apiUrl()], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/TANDEM_API_KEY is required/)
  })
})
