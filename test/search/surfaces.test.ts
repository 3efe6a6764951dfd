// Search through the MCP tool search_documents (the list of documents without a query, results
// pointing at blocks with one), the SDK's search(), and database assets found by table name.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { TandemClient } from '@tandem/client'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { seedDemo } from '../../src/demo/world.js'
import { admin, asset, grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { found, write } from './helpers.js'

let h: Harness
let w: World
let mcp: Client
beforeAll(async () => {
  h = await startTandem({ searchIndex: 'on' })
  w = await makeWorld(h, 'search-surfaces')
  mcp = new Client({ name: 'search-test', version: '1.0.0' })
  await mcp.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': w.keys.member } } },
    ),
  )
}, 120_000)
afterAll(async () => {
  await mcp?.close()
  await h?.close()
})

type Json = Record<string, any>
const call = async (args: Record<string, unknown>): Promise<Json> => {
  const r = await mcp.callTool({ name: 'search_documents', arguments: args })
  if (r.isError) throw new Error(JSON.stringify(r.content))
  return r.structuredContent as Json
}

it('search_documents lists the documents without a query and finds the block with one, which read_document reads', async () => {
  await grant(h, w.doc.id, w.users.member, 'view')
  const budget = await asset(h, {
    workspaceId: w.workspaceId,
    type: 'generic_doc',
    title: 'Budget 2027',
    defaultAccess: 'view',
  })
  await write(h, budget, 'Travel costs stay flat\nHeadcount grows by four engineers')
  expect((await call({})).documents.map((d: Json) => d.asset_id).sort()).toEqual([w.doc.id, budget.id].sort())
  await eventually(async () => expect((await call({ query: 'engineer*' })).documents).toHaveLength(1), 30_000)
  const [hit] = (await call({ query: 'headcount engineers' })).documents
  expect(hit).toMatchObject({
    asset_id: budget.id,
    title: 'Budget 2027',
    type: 'generic_doc',
    snippet: '«Headcount» grows by four «engineers»',
  })
  const read = await mcp.callTool({
    name: 'read_document',
    arguments: { asset_id: budget.id, mode: 'section', blocks: hit.block },
  })
  expect(JSON.parse((read.content as { text: string }[])[0]!.text).content).toBe('Headcount grows by four engineers\n')
  // a refusal reads as the endpoint's status and reason
  const bad = await mcp.callTool({ name: 'search_documents', arguments: { query: '"' } })
  expect(bad.isError ?? false).toBe(false)
})

it("the SDK's search() answers the REST shape, and a page's next reaches the rest", async () => {
  const client = new TandemClient({ baseUrl: `http://127.0.0.1:${h.server.apiPort}`, apiKey: w.keys.owner }) // document() mints tokens: owners and admins
  for (let i = 0; i < 3; i++)
    await write(
      h,
      await asset(h, { workspaceId: w.workspaceId, type: 'generic_doc', title: `Minutes ${i}`, defaultAccess: 'view' }),
      'the gazebo was painted',
    )
  await eventually(async () => expect(await found(h, w.keys.member, w.workspaceId, 'gazebo')).toHaveLength(3), 30_000)
  const first = await client.search(w.workspaceId, 'gazebo', { limit: 2 })
  expect(first.results).toHaveLength(2)
  expect(first.next).toBe(2)
  const rest = await client.search(w.workspaceId, 'gazebo', { limit: 2, offset: first.next! })
  expect(rest.results).toHaveLength(1)
  expect(rest.next).toBeUndefined()
  const section = await client.document(rest.results[0]!.doc_id).section({ blocks: [rest.results[0]!.block!] })
  expect(section.content).toBe('the gazebo was painted\n')
})

it('finds a database asset by the name of one of its tables', async () => {
  const world = await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))
  // the tables are made after the asset: the rebuild reads them (later DDL is not followed)
  expect((await admin(h.config, 'search', 'rebuild', '--workspace', world.workspaceId)).code).toBe(0)
  const owner = world.apiKey
  const r = await found(h, owner, world.workspaceId, 'customers')
  expect(r).toContain(DEMO_DATABASE_ID)
}, 120_000)

it("a workspace's stored list_documents override now applies to search_documents (the registry stays readable)", async () => {
  const world = await makeWorld(h, 'search-renamed')
  const override = { enabled: false, approval_mode: 'no_approval' }
  await h.server.deps.control.store.batch([
    {
      type: 'put',
      key: `toolreg/${world.workspaceId}`,
      value: { default_visibility: 'visible', tools: { list_documents: override } },
    },
  ])
  const reg = await (
    await fetch(`http://127.0.0.1:${h.server.apiPort}/api/v0/workspaces/${world.workspaceId}/tool-registry`, {
      headers: { 'x-api-key': world.keys.owner },
    })
  ).json()
  expect((reg as { tools: unknown }).tools).toEqual([{ tool_id: 'search_documents', ...override }])
})
