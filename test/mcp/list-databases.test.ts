// list_databases through the SDK's own Client on a real server: the workspace's database assets the
// caller may view, each with its tables, whose names read_table then takes; a database the caller
// may not view is not listed, nor one of another workspace (even one the caller may use there).
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Asset } from '../../src/control/assets.js'
import { setMember } from '../../src/control/workspaces.js'
import { assetDatabase } from '../../src/database-assets/resolve.js'
import { asset, grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let orders: Asset
let hidden: Asset
let elsewhere: Asset
const clients: Client[] = []

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'db-agent', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': key } } },
    ),
  )
  clients.push(client)
  return client
}

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'mcp-dbs')
  const there = await makeWorld(h, 'mcp-dbs-there')
  const pglite = { provider: 'pglite' } as const
  orders = await asset(h, { workspaceId: w.workspaceId, type: 'database', title: 'Orders', database: pglite })
  hidden = await asset(h, { workspaceId: w.workspaceId, type: 'database', title: 'Payroll', database: pglite })
  elsewhere = await asset(h, { workspaceId: there.workspaceId, type: 'database', title: 'Elsewhere', database: pglite })
  await grant(h, orders.id, w.users.member, 'view')
  // (a database asset's default is no access: the member has no grant on Payroll)
  await grant(h, orders.id, w.users.owner, 'edit')
  await grant(h, hidden.id, w.users.owner, 'view')
  // the member may use the other workspace's database too: only the session's scope keeps it out
  await setMember(h.server.deps.control.store, there.workspaceId, w.users.member, 'member')
  await grant(h, elsewhere.id, w.users.member, 'view')
  const db = await assetDatabase(h.server.deps.control.store, h.server.deps.databases, orders)
  await db.ready()
  await db.run({ text: 'CREATE TABLE items (id int PRIMARY KEY, name text)', values: [] })
  await db.run({ text: "INSERT INTO items VALUES (1, 'bolt'), (2, 'nut')", values: [] })
  await db.run({ text: 'CREATE TABLE customers (id int PRIMARY KEY)', values: [] })
}, 60_000)
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()))
  await h?.close()
})

type Json = Record<string, any>
async function use(client: Client, name: string, args: Json = {}): Promise<Json> {
  const r = await client.callTool({ name, arguments: args })
  const text = (r.content as { text: string }[])[0]!.text
  if (r.isError) throw new Error(text)
  expect(r.structuredContent).toEqual(JSON.parse(text))
  return r.structuredContent as Json
}

describe('list_databases over MCP', () => {
  it('lists the databases a viewer may view with their tables, and read_table reads a table it named', async () => {
    const member = await connect(w.keys.member)
    const listed = await use(member, 'list_databases')
    expect(listed).toMatchObject({ total: 1, databases: [{ asset_id: orders.id, title: 'Orders', access: 'view' }] })
    expect(listed.databases[0].tables.map((t: Json) => [t.name, t.schema]).sort()).toEqual([
      ['customers', 'public'],
      ['items', 'public'],
    ])
    const items = listed.databases[0].tables.find((t: Json) => t.name === 'items')
    const rows = await use(member, 'read_table', { asset_id: orders.id, table: items.name, query: 'order=id.asc' })
    expect(rows.data).toEqual([
      { id: 1, name: 'bolt' },
      { id: 2, name: 'nut' },
    ])
    expect(JSON.stringify(listed)).not.toContain(elsewhere.id)
  }, 60_000)

  it("pages: the owner sees both of the workspace's databases with their access, one a page, with next_offset", async () => {
    const owner = await connect(w.keys.owner)
    // the second database is opened (started) by the listing: until it answers it is listed with its error
    let first: Json = {}
    let second: Json = {}
    await eventually(async () => {
      first = await use(owner, 'list_databases', { limit: 1 })
      second = await use(owner, 'list_databases', { limit: 1, offset: first.next_offset })
      expect(second.databases[0].error).toBeUndefined()
    }, 30_000)
    expect([first.total, first.next_offset, second.next_offset]).toEqual([2, 1, undefined])
    expect(
      [...first.databases, ...second.databases].map((d: Json) => [d.title, d.access, d.tables?.length]).sort(),
    ).toEqual([
      ['Orders', 'edit', 2],
      ['Payroll', 'view', 0],
    ])
  }, 60_000)
})
