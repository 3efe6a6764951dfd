// Approval follows identity, not a self-declared attribution: under required_no_override an
// agent's key (or a key of a user marked as an agent) gets a suggestion from PATCH /content
// whatever its body says, its y-websocket socket reads only, and every MCP session is an agent,
// whichever key opened it. A person's key applies, whatever its body says. Both storage modes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { admin, call, grant, makeWorld, type World } from '../api/helpers.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

type Json = Record<string, any>
interface Minted {
  token: string
  rest_url: string
  org: string
  doc_id: string
}

let h: Harness | undefined
const closing: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c()))
  await h?.close()
  h = undefined
})

async function mint(h: Harness, key: string, docId: string): Promise<Minted> {
  const r = await call(h, 'POST', `/api/v0/assets/${docId}/collab-token`, { key, body: { access: 'edit' } })
  expect(r.status).toBe(200)
  return r.body as Minted
}

async function content(t: Minted, method: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${t.rest_url}/content/v1/${t.org}/${t.doc_id}?yauth=${t.token}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

async function requireApproval(h: Harness, w: World): Promise<void> {
  const r = await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
    key: w.keys.owner,
    body: { tool: { tool_id: 'edit_document', approval_mode: 'required_no_override' } },
  })
  expect(r.status).toBe(200)
}

/** A key made with `tandem admin keys create ... --agent` (through the running server). */
async function agentKey(h: Harness, user: string): Promise<string> {
  const made = await admin(h.config, 'keys', 'create', '--user', user, '--agent', '--json')
  expect(made.code).toBe(0)
  return (JSON.parse(made.out) as { key: string }).key
}

describe.each(BACKENDS)('approval by identity ($name)', (backend) => {
  it("an agent's key gets a suggestion from PATCH /content under required_no_override even when its body leaves out source: ai; a person's key applies", async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'identity')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const person = await mint(h, w.keys.owner, w.doc.id)
    expect((await content(person, 'PATCH', { format: 'markdown', content: 'Start.\n' })).body.applied).toBe(true)
    const agent = await mint(h, await agentKey(h, w.users.owner), w.doc.id)
    await requireApproval(h, w)

    for (const attributions of [undefined, { source: 'person' }]) {
      const held = await content(agent, 'PATCH', {
        format: 'markdown',
        content: 'Start, agent.\n',
        ...(attributions ? { attributions } : {}),
      })
      expect(held.status).toBe(202)
      expect(held.body).toMatchObject({ applied: false, suggestion: { status: 'open', by: w.users.owner } })
    }
    expect((await content(agent, 'PATCH', { format: 'markdown', content: 'Forced.\n', override: true })).status).toBe(
      403,
    )
    expect((await content(person, 'GET')).body.content).toBe('Start.\n')
    // the person's own key applies, whatever its body claims to be
    const own = await content(person, 'PATCH', {
      format: 'markdown',
      content: 'Start, person.\n',
      attributions: { source: 'ai' },
    })
    expect(own).toMatchObject({ status: 200, body: { applied: true } })
  })

  it("a key of a user marked as an agent is an agent's, and every MCP session is an agent whatever key opened it", async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'marked')
    for (const u of [w.users.owner, w.users.admin]) await grant(h, w.doc.id, u, 'edit')
    expect((await admin(h.config, 'users', 'set', '--email', w.users.admin, '--agent')).code).toBe(0)
    await requireApproval(h, w)
    const marked = await content(await mint(h, w.keys.admin, w.doc.id), 'PATCH', {
      format: 'markdown',
      content: 'By the marked user.\n',
    })
    expect(marked).toMatchObject({ status: 202, body: { applied: false } })

    // the owner's own (person's) key, through MCP: held all the same
    const client = new Client({ name: 'identity-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(
        new URL(`/mcp?workspace=${w.workspaceId}`, `http://127.0.0.1:${h.server.apiPort}`),
        { requestInit: { headers: { 'x-api-key': w.keys.owner } } },
      ),
    )
    closing.push(() => client.close())
    const r = await client.callTool({
      name: 'edit_document',
      arguments: { asset_id: w.doc.id, content: 'By MCP.\n', format: 'markdown' },
    })
    expect(r.isError).toBeFalsy()
    expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toMatchObject({
      applied: false,
      suggestion: { status: 'open' },
    })
    expect((await content(await mint(h, w.keys.owner, w.doc.id), 'GET')).body.content).toBe('')
  })

  it("an agent's token under approval cannot write around /content: rollback is refused, a person's is not", async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'around')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const person = await mint(h, w.keys.owner, w.doc.id)
    expect((await content(person, 'PATCH', { format: 'markdown', content: 'Kept.\n' })).body.applied).toBe(true)
    const agent = await mint(h, await agentKey(h, w.users.owner), w.doc.id)
    await requireApproval(h, w)
    const rollback = async (t: Minted) =>
      fetch(`${t.rest_url}/rollback/v1/${t.org}/${t.doc_id}?yauth=${t.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: 0 }),
      })
    const refused = await rollback(agent)
    expect(refused.status).toBe(403)
    expect(((await refused.json()) as Json).error).toMatch(/requires approval for agents' edits/)
    expect((await content(person, 'GET')).body.content).toBe('Kept.\n')
    expect((await rollback(person)).status).toBe(200)
  })

  it("an agent under approval withdraws its own suggestion, but cannot reject or accept another's", async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'withdraw')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const person = await mint(h, w.keys.owner, w.doc.id)
    const read = await content(person, 'PATCH', { format: 'markdown', content: 'One.\n' })
    const personal = await content(person, 'PATCH', {
      format: 'markdown',
      content: 'One. Two.\n',
      base: read.body.base,
      mode: 'suggest',
    })
    expect(personal.status).toBe(202)
    await grant(h, w.doc.id, w.users.admin, 'edit')
    const agent = await mint(h, await agentKey(h, w.users.admin), w.doc.id)
    await requireApproval(h, w)
    const held = await content(agent, 'PATCH', { edits: [{ old_text: 'One.', new_text: 'Uno.' }] })
    expect(held.status).toBe(202)
    const decide = async (t: Minted, id: string, action: string) => {
      const res = await fetch(`${t.rest_url}/suggestions/v1/${t.org}/${t.doc_id}/${id}/${action}?yauth=${t.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      return { status: res.status, body: (await res.json()) as Json }
    }
    for (const action of ['reject', 'accept']) {
      const other = await decide(agent, personal.body.suggestion.id, action)
      expect({ action, status: other.status }).toEqual({ action, status: 403 })
    }
    const own = await decide(agent, held.body.suggestion.id, 'reject')
    expect(own.status).toBe(200)
    expect(own.body.suggestion.status).toBe('withdrawn')
    expect((await content(person, 'GET')).body.content).toBe('One.\n')
  })

  it("a y-websocket provider opened with an agent's token under approval is read-only: its edit is refused and never stored", async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'socket')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    await requireApproval(h, w)
    const agent = await mint(h, await agentKey(h, w.users.owner), w.doc.id)
    const doc = new Y.Doc()
    const provider = h.provider(agent.org, agent.doc_id, agent.token, doc)
    await synced(provider)
    const frames: string[] = []
    provider.ws!.addEventListener('message', (e: MessageEvent) =>
      frames.push(Buffer.from(e.data as ArrayBuffer).toString('latin1')),
    )
    doc.getText('t').insert(0, 'typed by the agent')
    await eventually(() =>
      expect(frames.some((f) => f.includes('read-only: this token does not allow changes'))).toBe(true),
    )
    const stored = new Y.Doc()
    const res = await fetch(`${agent.rest_url}/ydoc/v1/${agent.org}/${agent.doc_id}?yauth=${agent.token}`, {
      headers: { accept: 'application/octet-stream' },
    })
    Y.applyUpdate(stored, new Uint8Array(await res.arrayBuffer()))
    expect(stored.getText('t').toString()).toBe('')
  })
})
