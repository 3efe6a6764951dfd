// An MCP session stays in the workspace it was opened for: an asset of another workspace (even one
// the caller may use there) answers every asset tool exactly as a missing asset does, so ids
// elsewhere cannot be probed, and list_databases lists none of its databases. The SDK's own Client
// over Streamable HTTP and over the stdio relay.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setMember } from '../../src/control/workspaces.js'
import { asset, grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let here: World
let there: World
const clients: Client[] = []

beforeAll(async () => {
  h = await startTandem()
  here = await makeWorld(h, 'scope-here')
  there = await makeWorld(h, 'scope-there')
  // the caller may use the other workspace's document too: only the session's scope keeps it out
  await setMember(h.server.deps.control.store, there.workspaceId, here.users.owner, 'admin')
  await grant(h, there.doc.id, here.users.owner, 'edit')
  await grant(h, here.doc.id, here.users.owner, 'edit')
  const elsewhere = await asset(h, {
    workspaceId: there.workspaceId,
    type: 'database',
    title: 'elsewhere',
    database: { provider: 'pglite' },
  })
  await grant(h, elsewhere.id, here.users.owner, 'view')
})
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()))
  await h?.close()
})

const apiUrl = () => `http://127.0.0.1:${h.server.apiPort}`

type Called = Awaited<ReturnType<Client['callTool']>>
const said = (r: Called) => ({ isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text })

/** Every asset tool, on one asset id. */
const CALLS = (asset_id: string): [string, Record<string, unknown>][] => [
  ['read_document', { asset_id }],
  ['edit_document', { asset_id, content: 'Written from elsewhere.\n' }],
  ['suggest_edit', { asset_id, content: 'Suggested from elsewhere.\n' }],
  ['list_suggestions', { asset_id }],
  ['read_suggestion', { asset_id, suggestion_id: 'sg-any' }],
  ['withdraw_suggestion', { asset_id, suggestion_id: 'sg-any' }],
  ['comment', { asset_id, text: 'From elsewhere.' }],
  ['read_comments', { asset_id }],
  ['read_table', { asset_id, table: 'customers' }],
  ['insert_rows', { asset_id, table: 'customers', rows: [{ id: 1 }] }],
]

async function expectSameAsMissing(client: Client): Promise<void> {
  for (const [name, args] of CALLS(there.doc.id)) {
    const elsewhere = said(await client.callTool({ name, arguments: args }))
    const missing = said(await client.callTool({ name, arguments: { ...args, asset_id: 'as-no-such-asset' } }))
    expect({ name, ...elsewhere }).toEqual({ name, isError: true, text: '404: Asset not found' })
    expect({ name, ...missing }).toEqual({ name, ...elsewhere })
  }
  // the other workspace's database is not listed, and its own workspace's document still reads
  expect(JSON.parse(said(await client.callTool({ name: 'list_databases', arguments: {} })).text)).toEqual({
    databases: [],
    total: 0,
  })
  expect((await client.callTool({ name: 'read_document', arguments: { asset_id: here.doc.id } })).isError).toBeFalsy()
}

describe('an MCP session sees its workspace only', () => {
  it("over Streamable HTTP: another workspace's document answers every tool as a missing one (404)", async () => {
    const client = new Client({ name: 'scoped-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`/mcp?workspace=${here.workspaceId}`, apiUrl()), {
        requestInit: { headers: { 'x-api-key': here.keys.owner } },
      }),
    )
    clients.push(client)
    await expectSameAsMissing(client)
  })

  it('over the stdio relay (tandem mcp): the same', async () => {
    const client = new Client({ name: 'scoped-desktop', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['bin/tandem.js', 'mcp', '--api-url', apiUrl(), '--workspace', here.workspaceId],
        env: { PATH: process.env.PATH ?? '', TANDEM_API_KEY: here.keys.owner },
        stderr: 'pipe',
      }),
    )
    clients.push(client)
    await expectSameAsMissing(client)
  })
})
