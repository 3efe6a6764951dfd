// What an LLM sees of Tandem's MCP server before it calls anything, over Streamable HTTP and the
// stdio relay alike: the initialize result's instructions; at most 12 tools, each annotated
// truthfully (read-only, destructive, idempotent, never open-world) with every parameter described;
// and the workspace's registry hiding one of them from sessions started afterwards.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_TOOLS } from '../../src/control/tool-catalog.js'
import { call, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
const clients: Client[] = []

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp-surface')
})
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()))
  await h?.close()
})

const apiUrl = () => `http://127.0.0.1:${h.server.apiPort}`

const TRANSPORTS = {
  http: () =>
    new StreamableHTTPClientTransport(new URL(`/mcp?workspace=${w.workspaceId}`, apiUrl()), {
      requestInit: { headers: { 'x-api-key': w.keys.owner } },
    }),
  stdio: () =>
    new StdioClientTransport({
      command: process.execPath,
      args: ['bin/tandem.js', 'mcp', '--api-url', apiUrl(), '--workspace', w.workspaceId],
      env: { PATH: process.env.PATH ?? '', TANDEM_API_KEY: w.keys.owner },
      stderr: 'pipe',
    }),
}

async function connect(over: keyof typeof TRANSPORTS): Promise<Client> {
  const client = new Client({ name: `surface-${over}`, version: '1.0.0' })
  await client.connect(TRANSPORTS[over]())
  clients.push(client)
  return client
}

/** [readOnlyHint, destructiveHint, idempotentHint] of every tool: what each really does. */
const HINTS: Record<string, [boolean, boolean, boolean]> = {
  search_documents: [true, false, true],
  read_document: [true, false, true],
  edit_document: [false, true, false],
  suggest_edit: [false, false, false],
  list_suggestions: [true, false, true],
  read_suggestion: [true, false, true],
  withdraw_suggestion: [false, true, true],
  list_databases: [true, false, true],
  read_table: [true, false, true],
  insert_rows: [false, false, false],
  read_comments: [true, false, true],
  comment: [false, false, false],
}

describe.each(['http', 'stdio'] as const)('what the model is told, over %s', (over) => {
  it('initialize gives instructions: outline first, targeted edits, always send base, approval makes suggestions', async () => {
    const instructions = (await connect(over)).getInstructions() ?? ''
    for (const says of ['search_documents', 'mode=outline', 'edits: [{old_text, new_text}]', '`base`', 'suggestion'])
      expect(instructions).toContain(says)
    expect(instructions.length).toBeLessThan(1500)
  })

  it('lists at most 12 tools, the catalog, each annotated truthfully with every parameter described', async () => {
    const { tools } = await (await connect(over)).listTools()
    expect(tools.length).toBeLessThanOrEqual(12)
    expect(tools.map((t) => t.name).sort()).toEqual([...MCP_TOOLS].sort())
    for (const t of tools) {
      const a = t.annotations ?? {}
      expect([t.name, a.readOnlyHint, a.destructiveHint, a.idempotentHint, a.openWorldHint]).toEqual([
        t.name,
        ...HINTS[t.name]!,
        false,
      ])
      expect([t.name, typeof a.title, typeof t.description]).toEqual([t.name, 'string', 'string'])
      const props = (t.inputSchema.properties ?? {}) as Record<string, { description?: string }>
      for (const [param, p] of Object.entries(props))
        expect([t.name, param, typeof p.description]).toEqual([t.name, param, 'string'])
    }
    // a stable answer is declared: structured content to match
    const declared = tools.filter((t) => t.outputSchema).map((t) => t.name)
    expect(declared.sort()).toEqual(MCP_TOOLS.filter((t) => t !== 'edit_document' && t !== 'suggest_edit').sort())
  })
})

describe("the workspace's tool registry", () => {
  it('disabling read_comments hides it from sessions started afterwards, over both transports; a call to it is refused', async () => {
    const before = await connect('http')
    const patch = await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
      key: w.keys.owner,
      body: { tool: { tool_id: 'read_comments', enabled: false } },
    })
    expect(patch.status).toBe(200)
    for (const over of ['http', 'stdio'] as const) {
      const names = (await (await connect(over)).listTools()).tools.map((t) => t.name)
      expect([over, names.includes('read_comments'), names.length]).toEqual([over, false, MCP_TOOLS.length - 1])
    }
    const after = await connect('http')
    const refused = await after.callTool({ name: 'read_comments', arguments: { asset_id: w.doc.id } })
    expect(refused.isError).toBe(true)
    // a session keeps the list it started with
    expect((await before.listTools()).tools.map((t) => t.name)).toContain('read_comments')
  })
})
