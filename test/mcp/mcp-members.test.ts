// Members use the document tools with their own permission on the asset: view reads, edit writes,
// none sees nothing (the same 404 as a missing asset). The REST minting endpoint stays for owners
// and admins: the tools' tokens come from the session, not from a wider REST rule.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let w: World
let member: Client

beforeAll(async () => {
  h = await startTandem()
  w = await makeWorld(h, 'members')
  member = new Client({ name: 'member-agent', version: '1.0.0' })
  await member.connect(
    new StreamableHTTPClientTransport(
      new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
      { requestInit: { headers: { 'x-api-key': w.keys.member } } },
    ),
  )
})
afterAll(async () => {
  await member?.close()
  await h?.close()
})

type Called = Awaited<ReturnType<Client['callTool']>>
const said = (r: Called) => ({ isError: r.isError === true, text: (r.content as { text: string }[])[0]!.text })
const read = async () => said(await member.callTool({ name: 'read_document', arguments: { asset_id: w.doc.id } }))
const edit = async (content: string) =>
  said(await member.callTool({ name: 'edit_document', arguments: { asset_id: w.doc.id, content } }))

describe('a workspace member through MCP', () => {
  it('with view permission reads the document and is told plainly it may not edit it', async () => {
    await grant(h, w.doc.id, w.users.member, 'view')
    expect(await read()).toMatchObject({ isError: false })
    const refused = await edit('By a viewer.\n')
    expect(refused).toEqual({
      isError: true,
      text: '403: you may only view this document: editing needs edit permission on it',
    })
    expect(JSON.parse((await read()).text).content).toBe('')
  })

  it('with edit permission edits the document', async () => {
    await grant(h, w.doc.id, w.users.member, 'edit')
    const done = await edit('By a member.\n')
    expect(done.isError).toBe(false)
    expect(JSON.parse(done.text)).toMatchObject({ applied: true })
    expect(JSON.parse((await read()).text).content).toBe('By a member.\n')
  })

  it('with no permission sees the document as missing, and REST minting stays for owners and admins', async () => {
    await grant(h, w.doc.id, w.users.member, 'none')
    expect(await read()).toEqual({ isError: true, text: '404: Asset not found' })
    await grant(h, w.doc.id, w.users.member, 'edit')
    const rest = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.member,
      body: { access: 'edit' },
    })
    expect(rest).toMatchObject({ status: 403, body: { detail: 'Workspace owner or admin permission required' } })
  })
})
