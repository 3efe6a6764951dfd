// An MCP session is one agent in the room: named after its MCP client, seen by a person's stock
// provider while it edits (its caret after what it wrote) and where it reads with show_people, the
// same awareness client for every call, and gone at once when the session ends.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp-presence')
  await grant(h, w.doc.id, w.users.owner, 'edit')
})
afterAll(async () => h?.close())

type Json = Record<string, any>

async function connect(name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(
    new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
    { requestInit: { headers: { 'x-api-key': w.keys.owner } } },
  )
  await client.connect(transport)
  return { client, transport }
}

async function tool(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: { asset_id: w.doc.id, ...args } })
  const text = (r.content as { text: string }[])[0]!.text
  if (r.isError) throw new Error(text)
  return JSON.parse(text) as Json
}

const agentsIn = (p: { awareness: { getStates(): Map<number, Json> } }) =>
  [...p.awareness.getStates()].filter(([, s]) => s.user?.kind === 'agent')

function textAt(doc: Y.Doc, json: Json): string {
  const abs = Y.createAbsolutePositionFromRelativePosition(Y.createRelativePositionFromJSON(json), doc)!
  return (abs.type as Y.XmlText)
    .toDelta()
    .map((d: { insert: string }) => d.insert)
    .join('')
    .slice(0, abs.index)
}

describe('an MCP session in the room', () => {
  it('is one agent named after its client, seen while it edits and reads, gone when the session ends', async () => {
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, w.doc.id, await h.token(w.workspaceId, w.doc.id, { sub: 'bob@x.org' }), ydoc)
    await synced(p)
    const { client, transport } = await connect('claude-code')

    const first = await tool(client, 'edit_document', { content: '# Notes\n\nFirst line.\n\n## Next\n\nLater.\n' })
    await eventually(() => {
      const seen = agentsIn(p)
      expect(seen).toHaveLength(1)
      expect(seen[0]![1].user).toMatchObject({ name: 'claude-code', kind: 'agent' })
    })
    const [id] = agentsIn(p)[0]!

    await tool(client, 'edit_document', { base: first.base, edits: [{ old_text: 'Later.', new_text: 'Later on.' }] })
    await eventually(() => {
      const seen = agentsIn(p)
      expect(seen.map(([c]) => c)).toEqual([id])
      expect(textAt(ydoc, seen[0]![1].cursor.head)).toBe('Later on')
    })

    const section = await tool(client, 'read_document', { mode: 'section', heading: 'Notes', show_people: true })
    expect(section.content).toContain('# Notes')
    await eventually(() => {
      const [[c, s]] = agentsIn(p) as [[number, Json]]
      expect(c).toBe(id)
      expect(textAt(ydoc, s.cursor.anchor)).toBe('')
      expect(textAt(ydoc, s.cursor.head)).toBe('Notes')
    })

    await transport.terminateSession()
    await client.close()
    await eventually(() => expect(agentsIn(p)).toEqual([]))
    expect(h.server.registry.agents.size).toBe(0)
  })
})
