// Collab-token endpoint (spec 4.6): the role x permission matrix, 404s that do not tell a missing
// asset from an ineligible one, the token's claims and lifetime, and a real y-websocket provider
// opening the document with a token minted over REST.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { verifyToken } from '../../src/auth/capability.js'
import { BACKENDS } from '../helpers/backends.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'
import { asset, call, grant, makeWorld, ROLES } from './helpers.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const mint = (h: Harness, assetId: string, key: string, body?: object) =>
  call(h, 'POST', `/api/v0/assets/${assetId}/collab-token`, { key, ...(body ? { body } : {}) })

describe.each(BACKENDS)('collab token ($name)', (backend) => {
  it('grants by role and clamps by permission: owner/admin x view/edit/none, member and stranger 403', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'matrix')
    const rows: string[] = []
    for (const role of ROLES) {
      for (const perm of ['view', 'edit', 'none'] as const) {
        await grant(h, w.doc.id, w.users[role], perm)
        const asView = await mint(h, w.doc.id, w.keys[role], { access: 'view' })
        const asEdit = await mint(h, w.doc.id, w.keys[role], { access: 'edit' })
        const show = (r: typeof asView) => (r.status === 200 ? r.body.access_type : r.status)
        rows.push(`${role} ${perm}: view->${show(asView)} edit->${show(asEdit)}`)
      }
    }
    expect(rows).toEqual([
      'owner view: view->r edit->r',
      'owner edit: view->r edit->rw',
      'owner none: view->403 edit->403',
      'admin view: view->r edit->r',
      'admin edit: view->r edit->rw',
      'admin none: view->403 edit->403',
      'member view: view->403 edit->403',
      'member edit: view->403 edit->403',
      'member none: view->403 edit->403',
      'stranger view: view->403 edit->403',
      'stranger edit: view->403 edit->403',
      'stranger none: view->403 edit->403',
    ])
  })

  it('uses the workspace default permission when the caller has no grant, and view when no body is sent', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'default')
    const shared = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'generic_doc',
      title: 'shared',
      defaultAccess: 'edit',
    })
    expect((await mint(h, shared.id, w.keys.admin, { access: 'edit' })).body.access_type).toBe('rw')
    expect((await mint(h, shared.id, w.keys.admin)).body.access_type).toBe('r')
  })

  it('answers a missing asset and a non-generic_doc asset with the same 404', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'types')
    const db = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'database',
      title: 'db',
      defaultAccess: 'edit',
      database: { provider: 'pglite' },
    })
    const file = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'f',
      defaultAccess: 'edit',
      text: 'x',
    })
    const missing = await mint(h, 'no-such-asset', w.keys.owner)
    expect(missing).toMatchObject({ status: 404, body: { detail: 'Asset not found' } })
    for (const a of [db, file]) {
      const r = await mint(h, a.id, w.keys.owner)
      expect({ status: r.status, body: r.body }).toEqual({ status: missing.status, body: missing.body })
    }
  })

  it('returns a token for exactly this document with expiry from the configured TTL and the public URLs', async () => {
    let clock = 1_800_000_000_000
    h = await startTandem(
      {
        ...(await backend.overrides()),
        tokenTtlSec: 120,
        publicRestUrl: 'https://collab.example.com',
        publicWsUrl: 'wss://collab.example.com/ws',
      },
      { now: () => clock },
    )
    const w = await makeWorld(h, 'claims')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const r = await mint(h, w.doc.id, w.keys.owner, { access: 'edit' })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      token: expect.any(String),
      access_type: 'rw',
      doc_id: w.doc.id,
      org: w.workspaceId,
      rest_url: 'https://collab.example.com',
      ws_url: 'wss://collab.example.com/ws',
      expires_at_ms: clock + 120_000,
      branch: 'main',
    })
    const cap = await verifyToken(h.server.deps.keys, r.body.token, clock)
    expect(cap).toMatchObject({
      sub: w.users.owner,
      org: w.workspaceId,
      doc: w.doc.id,
      branch: 'main',
      acc: 'rw',
      asset: w.doc.id,
    })
    clock += 121_000
    await expect(verifyToken(h.server.deps.keys, r.body.token, clock)).rejects.toMatchObject({ code: 'token_expired' })
  })

  it('mints a token that a stock y-websocket provider uses at once to edit the document', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'provider')
    await grant(h, w.doc.id, w.users.admin, 'edit')
    const r = await mint(h, w.doc.id, w.keys.admin, { access: 'edit' })
    expect(r.body.ws_url).toBe(h.wsUrl)
    const ydoc = new Y.Doc()
    const provider = h.provider(r.body.org, r.body.doc_id, r.body.token, ydoc)
    await eventually(() => expect(provider.synced).toBe(true))
    ydoc.getText('text').insert(0, 'typed through a REST-minted token')
    await eventually(async () => {
      const content = await call(h!, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.admin })
      expect(content.body.content).toBe('typed through a REST-minted token')
    })
  })

  it('validates the body: a bad access value is a 422 enum error', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'body')
    const r = await mint(h, w.doc.id, w.keys.owner, { access: 'admin' })
    expect(r.status).toBe(422)
    expect(r.body).toEqual({
      detail: [
        {
          type: 'enum',
          loc: ['body', 'access'],
          msg: "Input should be 'view' or 'edit'",
          input: 'admin',
          ctx: { expected: "'view' or 'edit'" },
        },
      ],
    })
  })

  it('puts "attributions" in the token (stored with every update it sends); maps over the limits are pydantic 422s', async () => {
    h = await startTandem(await backend.overrides())
    const w = await makeWorld(h, 'attributions')
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const r = await mint(h, w.doc.id, w.keys.owner, { access: 'edit', attributions: { source: 'ai', model: 'm1' } })
    expect(r.status).toBe(200)
    expect((await verifyToken(h.server.deps.keys, r.body.token)).attr).toEqual({ model: 'm1', source: 'ai' })
    const plain = await mint(h, w.doc.id, w.keys.owner, { access: 'edit' })
    expect((await verifyToken(h.server.deps.keys, plain.body.token)).attr).toBeUndefined()

    const nine = Object.fromEntries([...Array(9).keys()].map((i) => [`k${i}`, 'v']))
    const tooMany = await mint(h, w.doc.id, w.keys.owner, { attributions: nine })
    expect(tooMany.status).toBe(422)
    expect(tooMany.body.detail).toEqual([
      {
        type: 'too_long',
        loc: ['body', 'attributions'],
        msg: 'Dictionary should have at most 8 items after validation, not 9',
        input: nine,
        ctx: { field_type: 'Dictionary', max_length: 8, actual_length: 9 },
      },
    ])
    const badKey = await mint(h, w.doc.id, w.keys.owner, { attributions: { Source: 'ai' } })
    expect(badKey.status).toBe(422)
    expect(badKey.body.detail[0]).toMatchObject({
      type: 'string_pattern_mismatch',
      loc: ['body', 'attributions', 'Source', '[key]'],
    })
    const longValue = await mint(h, w.doc.id, w.keys.owner, { attributions: { source: 'x'.repeat(129) } })
    expect(longValue.body.detail[0]).toMatchObject({
      type: 'string_too_long',
      loc: ['body', 'attributions', 'source'],
      ctx: { max_length: 128 },
    })
    const notString = await mint(h, w.doc.id, w.keys.owner, { attributions: { source: 1 } })
    expect(notString.body.detail[0]).toMatchObject({ type: 'string_type', loc: ['body', 'attributions', 'source'] })
  })
})
