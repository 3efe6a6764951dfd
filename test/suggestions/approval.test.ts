// The workspace tool registry's approval mode for `edit_document` decides what an agent's content
// write does (a token carrying `source: ai`, or an MCP call): no_approval applies it,
// required_no_override holds it as a suggestion (and refuses an override), required_with_override
// holds it unless the call overrides (recorded in the update's attributions). A person's write, and
// `"mode": "suggest"` from anyone, are as they say.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { call, grant, makeWorld, type World } from '../api/helpers.js'
import { encodeSyncStep1, encodeUpdate } from '@tandem/protocol/messages'
import { authenticated, hocusClients } from '../helpers/hocuspocus.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { startReceiver, type Receiver } from '../webhooks/receiver.js'

let h: Harness
let w: World
let hooks: Receiver
beforeAll(async () => {
  h = await startTandem({ webhookAllowPrivate: true, webhookDebounceMs: 200, webhookTimeoutMs: 2000 })
  hooks = await startReceiver()
  w = await makeWorld(h, 'approval')
  await grant(h, w.doc.id, w.users.owner, 'edit')
})
afterAll(async () => {
  await h?.close()
  await hooks?.close()
})

type Json = Record<string, any>

async function tokenFor(
  attributions?: Record<string, string>,
): Promise<{ token: string; rest_url: string; org: string; doc_id: string }> {
  const r = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
    key: w.keys.owner,
    body: { access: 'edit', ...(attributions ? { attributions } : {}) },
  })
  expect(r.status).toBe(200)
  return r.body as never
}

async function content(
  t: { token: string; rest_url: string; org: string; doc_id: string },
  method: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${t.rest_url}/content/v1/${t.org}/${t.doc_id}?yauth=${t.token}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

const setMode = async (approval_mode: string) =>
  expect(
    (
      await call(h, 'PATCH', `/api/v0/workspaces/${w.workspaceId}/tool-registry`, {
        key: w.keys.owner,
        body: { tool: { tool_id: 'edit_document', approval_mode } },
      })
    ).status,
  ).toBe(200)

describe("the registry's approval mode for agents' content writes", () => {
  it('holds, refuses an override, or applies as the mode says', async () => {
    const person = await tokenFor()
    const agent = await tokenFor({ source: 'ai', model: 'm1' })
    await content(person, 'PATCH', { format: 'markdown', content: 'Start.\n' })

    await setMode('required_no_override')
    const read = await content(agent, 'GET')
    const held = await content(agent, 'PATCH', { format: 'markdown', content: 'Start, agent.\n', base: read.body.base })
    expect(held.status).toBe(202)
    expect(held.body).toMatchObject({
      applied: false,
      suggestion: { status: 'open', by: w.users.owner, attributions: { source: 'ai', model: 'm1' } },
    })
    expect((await content(person, 'GET')).body.content).toBe('Start.\n')
    const refused = await content(agent, 'PATCH', { format: 'markdown', content: 'Start, agent.\n', override: true })
    expect(refused.status).toBe(403)
    // a person's own write is theirs to make
    expect((await content(person, 'PATCH', { format: 'markdown', content: 'Start, person.\n' })).body.applied).toBe(
      true,
    )
    // the agent cannot go around the rule with a raw update
    const d = new Y.Doc()
    d.getText('side').insert(0, 'raw')
    const raw = async (t: Json) =>
      (
        await fetch(`${t.rest_url}/ydoc/v1/${t.org}/${t.doc_id}?yauth=${t.token}`, {
          method: 'PATCH',
          body: Y.encodeStateAsUpdate(d),
          headers: { 'content-type': 'application/octet-stream' },
        })
      ).status
    expect(await raw(agent)).toBe(403)
    expect(await raw(person)).toBe(200)
    // nor over a socket: a Hocuspocus provider with the agent's token is read-only there
    const clients = hocusClients()
    try {
      expect(
        await authenticated(clients.provider(clients.socket(h.wsUrl), `${agent.org}/${agent.doc_id}`, agent.token)),
      ).toBe('readonly')
      expect(
        await authenticated(clients.provider(clients.socket(h.wsUrl), `${person.org}/${person.doc_id}`, person.token)),
      ).toBe('read-write')
    } finally {
      clients.destroy()
    }

    await setMode('required_with_override')
    expect((await content(agent, 'PATCH', { format: 'markdown', content: 'Held.\n' })).status).toBe(202)
    const forced = await content(agent, 'PATCH', { format: 'markdown', content: 'Overridden.\n', override: true })
    expect(forced.body.applied).toBe(true)
    const act = (await (
      await fetch(`${agent.rest_url}/activity/v1/${agent.org}/${agent.doc_id}?yauth=${agent.token}&group=false`)
    ).json()) as Json
    expect(act.entries[0].attributes).toEqual({ source: 'ai', model: 'm1', override: 'true' })

    await setMode('no_approval')
    expect((await content(agent, 'PATCH', { format: 'markdown', content: 'Applied.\n' })).body.applied).toBe(true)
    // anyone may ask for a suggestion
    const asked = await content(person, 'PATCH', { format: 'markdown', content: 'Asked.\n', mode: 'suggest' })
    expect(asked.status).toBe(202)
    expect((await content(person, 'GET')).body.content).toBe('Applied.\n')
    const list = (await (
      await fetch(`${agent.rest_url}/suggestions/v1/${agent.org}/${agent.doc_id}?yauth=${agent.token}&status=open`)
    ).json()) as Json
    expect(list.suggestions).toHaveLength(3)
  })

  it("narrows an agent's socket joined under no_approval to read-only as soon as the mode requires approval, on both protocols", async () => {
    await setMode('no_approval')
    const agent = await tokenFor({ source: 'ai', model: 'm2' })
    const said = (m: Uint8Array, text: string) => Buffer.from(m).toString('latin1').includes(text)
    const isStep2 = (m: Uint8Array) => m[0] === 0 && m[1] === 1
    const raw = await rawClient(`${h.wsUrl}/${agent.org}/${agent.doc_id}?yauth=${agent.token}`)
    /** sync step 1 and its answer: everything this socket sent before it was handled (in order) */
    const roundTrip = async () => {
      const answers = raw.messages.filter(isStep2).length
      raw.send(encodeSyncStep1(Y.encodeStateVector(new Y.Doc())))
      await eventually(() => expect(raw.messages.filter(isStep2).length).toBeGreaterThan(answers))
    }
    await roundTrip()
    const clients = hocusClients()
    try {
      const hp = clients.provider(clients.socket(h.wsUrl), `${agent.org}/${agent.doc_id}`, agent.token)
      expect(await authenticated(hp)).toBe('read-write')

      await setMode('required_no_override')
      // the registry's PATCH has returned: both sockets were narrowed, and told so
      await eventually(() => {
        expect(hp.authorizedScope).toBe('readonly')
        expect(raw.messages.some((m) => said(m, 'edit access withdrawn'))).toBe(true)
      })
      // and the raw socket's next update is refused, never stored
      const d = new Y.Doc()
      d.getText('narrowed').insert(0, 'after the change')
      raw.send(encodeUpdate(Y.encodeStateAsUpdate(d)))
      await roundTrip()
      expect(raw.messages.some((m) => said(m, 'read-only: this token does not allow changes'))).toBe(true)
      const stored = new Y.Doc()
      const state = await fetch(`${agent.rest_url}/ydoc/v1/${agent.org}/${agent.doc_id}?yauth=${agent.token}`, {
        headers: { accept: 'application/octet-stream' },
      })
      Y.applyUpdate(stored, new Uint8Array(await state.arrayBuffer()))
      expect(stored.getText('narrowed').toString()).toBe('')
    } finally {
      clients.destroy()
      raw.ws.close()
      await setMode('no_approval')
    }
  })

  it('suggestion.created and suggestion.accepted reach the workspace webhooks', async () => {
    const reg = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.owner,
      body: { url: hooks.url, events: ['suggestion.created', 'suggestion.accepted', 'suggestion.rejected'] },
    })
    expect(reg.status).toBe(201)
    const agent = await tokenFor({ source: 'ai' })
    const held = await content(agent, 'PATCH', {
      format: 'markdown',
      content: 'From the webhook test.\n',
      mode: 'suggest',
    })
    const id = held.body.suggestion.id as string
    // the reviewer is another user: the admin
    await grant(h, w.doc.id, w.users.admin, 'edit')
    const adminToken = (
      await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, { key: w.keys.admin, body: { access: 'edit' } })
    ).body as Json
    const accepted = await fetch(
      `${adminToken.rest_url}/suggestions/v1/${adminToken.org}/${adminToken.doc_id}/${id}/accept?yauth=${adminToken.token}`,
      { method: 'POST' },
    )
    expect(accepted.status).toBe(200)
    await eventually(() => {
      const events = hooks.accepted.map((r) => [r.json.type, r.json.data.suggestion_id, r.json.data.status])
      expect(events).toEqual([
        ['suggestion.created', id, 'open'],
        ['suggestion.accepted', id, 'accepted'],
      ])
    })
    expect(hooks.accepted[1]!.json.data).toMatchObject({
      by: w.users.owner,
      decided_by: w.users.admin,
      asset_id: w.doc.id,
      workspace_id: w.workspaceId,
    })
  })
})
