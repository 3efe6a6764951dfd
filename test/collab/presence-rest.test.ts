// Presence over REST on a real server: GET /ydoc?awareness=true answers the room's merged
// awareness (stock y-websocket providers' states), and PATCH {awareness} reaches every live
// provider, from a read-only token too, which still may not send updates.
import { afterEach, describe, expect, it } from 'vitest'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
afterEach(async () => h?.close())

type Json = Record<string, any>

async function call(method: string, doc: string, token: string, query = '', body?: unknown) {
  const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/${doc}?yauth=${token}${query ? '&' + query : ''}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  return { status: res.status, body: (await res.json()) as Json }
}

/** The states a base64 awareness update holds, by client id. */
function statesOf(b64: string): Map<number, unknown> {
  const aw = new awarenessProtocol.Awareness(new Y.Doc())
  awarenessProtocol.applyAwarenessUpdate(aw, Buffer.from(b64, 'base64'), 'test')
  const states = new Map(aw.getStates())
  states.delete(aw.clientID)
  aw.destroy()
  return states
}

/** A REST caller's own presence, as a bare awareness update. */
function restPresence(state: Record<string, unknown>): { clientID: number; b64: string } {
  const aw = new awarenessProtocol.Awareness(new Y.Doc())
  aw.setLocalState(state)
  const b64 = Buffer.from(awarenessProtocol.encodeAwarenessUpdate(aw, [aw.clientID])).toString('base64')
  aw.destroy()
  return { clientID: aw.clientID, b64 }
}

describe('presence over REST', () => {
  it("GET ?awareness=true answers the live clients' states, and nothing when the room has none", async () => {
    h = await startTandem({}, { api: false })
    const r = await h.token('acme', 'seen', { acc: 'r', sub: 'carl' })
    const empty = await call('GET', 'seen', r, 'awareness=true')
    expect(empty.status).toBe(200)
    expect(empty.body).not.toHaveProperty('awareness')
    const p = h.provider('acme', 'seen', await h.token('acme', 'seen', { sub: 'ann' }))
    p.awareness.setLocalState({ user: { name: 'Ann' }, cursor: 3 })
    await synced(p)
    await eventually(async () => {
      const got = await call('GET', 'seen', r, 'awareness=true')
      expect(statesOf(got.body.awareness).get(p.awareness.clientID)).toEqual({ user: { name: 'Ann' }, cursor: 3 })
    })
    expect(await call('GET', 'seen', r)).not.toHaveProperty('body.awareness')
    expect((await call('GET', 'seen', r, 'awareness=maybe')).status).toBe(400)
  })

  it('PATCH {awareness} reaches every live provider, from a read-only token; its updates stay refused', async () => {
    h = await startTandem({}, { api: false })
    const ydoc = new Y.Doc()
    const p = h.provider('acme', 'told', await h.token('acme', 'told', { sub: 'ann' }), ydoc)
    p.awareness.setLocalState({ user: { name: 'Ann' } })
    await synced(p)
    const r = await h.token('acme', 'told', { acc: 'r', sub: 'viewer' })
    const me = restPresence({ user: { name: 'Viewer bot' } })
    const sent = await call('PATCH', 'told', r, '', { awareness: me.b64 })
    expect(sent).toEqual({ status: 200, body: { ok: true } })
    await eventually(() => expect(p.awareness.getStates().get(me.clientID)).toEqual({ user: { name: 'Viewer bot' } }))

    const d = new Y.Doc()
    d.getText('t').insert(0, 'nope')
    const update = Buffer.from(Y.encodeStateAsUpdate(d)).toString('base64')
    const other = restPresence({ user: { name: 'Sneaky' } })
    const refused = await call('PATCH', 'told', r, '', { update, awareness: other.b64 })
    expect(refused.status).toBe(403)
    const bad = await call('PATCH', 'told', await h.token('acme', 'told'), '', {
      awareness: Buffer.from([1, 5, 1]).toString('base64'),
    })
    expect(bad).toMatchObject({ status: 400, body: { code: 'bad_request' } })
    // refusals change nothing: no text, no second REST client, nothing half-applied
    await eventually(async () => {
      const got = await call('GET', 'told', r, 'awareness=true')
      expect([...statesOf(got.body.awareness).keys()].sort()).toEqual([p.awareness.clientID, me.clientID].sort())
    })
    expect(ydoc.getText('t').toString()).toBe('')
  })
})
