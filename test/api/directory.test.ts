// Directory endpoints the console reads (GET /me, GET /workspaces/{id}/assets): same key auth and
// error shapes as the spec's endpoints, only what the caller may view, and present in OpenAPI.
import { afterEach, describe, expect, it } from 'vitest'
import { startTandem, type Harness } from '../helpers/tandem.js'
import { asset, call, grant, makeWorld } from './helpers.js'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

describe('directory endpoints', () => {
  it('GET /me names the caller and their workspaces with roles; a bad key is 401 {detail}', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'me')
    const me = await call(h, 'GET', '/api/v0/me', { key: w.keys.admin })
    expect(me.status).toBe(200)
    expect(me.body).toEqual({
      user_id: w.users.admin,
      workspaces: [{ id: w.workspaceId, name: 'ws me', role: 'admin' }],
    })
    expect((await call(h, 'GET', '/api/v0/me', { key: w.keys.stranger })).body).toEqual({
      user_id: w.users.stranger,
      workspaces: [],
    })
    const bad = await call(h, 'GET', '/api/v0/me', { key: 'tdm_0000000000000000_nope' })
    expect(bad.status).toBe(401)
    expect(bad.body).toEqual({ detail: 'Invalid API key' })
    expect((await call(h, 'GET', '/api/v0/me')).status).toBe(401)
  })

  it('lists only the assets the caller may view, with their access; 404 unknown workspace, 403 non-member', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'assets')
    const notes = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'Notes',
      defaultAccess: 'view',
      text: 'hi',
    })
    const db = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'database',
      title: 'Accounts',
      database: { provider: 'pglite' },
    })
    await grant(h, w.doc.id, w.users.member, 'edit')
    await grant(h, notes.id, w.users.admin, 'none')
    await grant(h, db.id, w.users.admin, 'view')
    const list = async (key: string) => call(h!, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets`, { key })

    const member = await list(w.keys.member)
    expect(member.status).toBe(200)
    expect(member.body).toEqual({
      workspace_id: w.workspaceId,
      assets: [
        { id: w.doc.id, type: 'generic_doc', title: 'doc assets', access: 'edit' },
        { id: notes.id, type: 'file', title: 'Notes', access: 'view' },
      ],
    })
    // The admin's grant shuts Notes out and opens the database; the doc has no default for them.
    expect((await list(w.keys.admin)).body.assets).toEqual([
      { id: db.id, type: 'database', title: 'Accounts', access: 'view' },
    ])

    const stranger = await list(w.keys.stranger)
    expect(stranger.status).toBe(403)
    expect(stranger.body).toEqual({ detail: 'Not a member of this workspace' })
    const missing = await call(h, 'GET', '/api/v0/workspaces/ws_nope/assets', { key: w.keys.owner })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ detail: 'Workspace not found' })
    expect((await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets`)).status).toBe(401)
    const long = await call(h, 'GET', `/api/v0/workspaces/${'x'.repeat(201)}/assets`, { key: w.keys.owner })
    expect(long.status).toBe(422)
    expect(long.body.detail[0].type).toBe('string_too_long')
  })

  it('deleted=true lists the soft-deleted assets for owners and admins only (403 for others); restore takes one off, a hard delete is never listed', async () => {
    h = await startTandem()
    const w = await makeWorld(h, 'bin')
    const notes = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'Notes',
      defaultAccess: 'view',
      text: 'hi',
    })
    const gone = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'Gone',
      defaultAccess: 'view',
      text: 'x',
    })
    const bin = (key: string) => call(h!, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets?deleted=true`, { key })
    expect((await bin(w.keys.owner)).body).toEqual({ workspace_id: w.workspaceId, assets: [] })

    const delDoc = await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}`, { key: w.keys.owner })
    const delNotes = await call(h, 'DELETE', `/api/v0/assets/${notes.id}`, { key: w.keys.admin })
    expect((await call(h, 'DELETE', `/api/v0/assets/${gone.id}?hard=true`, { key: w.keys.owner })).status).toBe(200)
    const listed = await bin(w.keys.admin)
    expect(listed.status).toBe(200)
    // newest deletion first, whatever the admin's own grant on each asset
    expect(listed.body.assets).toEqual(
      [
        {
          id: notes.id,
          type: 'file',
          title: 'Notes',
          deleted_at_ms: delNotes.body.deleted_at_ms,
          deleted_by: w.users.admin,
        },
        {
          id: w.doc.id,
          type: 'generic_doc',
          title: 'doc bin',
          deleted_at_ms: delDoc.body.deleted_at_ms,
          deleted_by: w.users.owner,
        },
      ].sort((a, b) => b.deleted_at_ms - a.deleted_at_ms || (a.title < b.title ? -1 : 1)),
    )
    expect((await bin(w.keys.owner)).body).toEqual(listed.body)
    // the plain listing shows none of them
    expect(
      (await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets`, { key: w.keys.member })).body.assets,
    ).toEqual([])

    const member = await bin(w.keys.member)
    expect(member.status).toBe(403)
    expect(member.body).toEqual({ detail: 'Workspace owner or admin permission required' })
    expect((await bin(w.keys.stranger)).status).toBe(403)
    const bad = await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets?deleted=maybe`, { key: w.keys.owner })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(['query', 'deleted'])

    await call(h, 'POST', `/api/v0/assets/${notes.id}/restore`, { key: w.keys.owner })
    expect((await bin(w.keys.owner)).body.assets.map((a: { id: string }) => a.id)).toEqual([w.doc.id])
  })

  it('both are in the OpenAPI document with their response schemas', async () => {
    h = await startTandem()
    const doc = (await call(h, 'GET', '/api/v0/openapi.json')).body
    expect(doc.paths['/api/v0/me'].get.operationId).toBe('get_me')
    const assets = doc.paths['/api/v0/workspaces/{workspace_id}/assets'].get
    expect(assets.operationId).toBe('list_workspace_assets')
    expect(Object.keys(assets.responses).sort()).toEqual(['200', '401', '403', '404', '422'])
    expect(doc.components.schemas.AssetSummary.properties.access.enum).toEqual(['view', 'edit'])
    expect(assets.parameters.map((p: { name: string }) => p.name)).toContain('deleted')
    expect(Object.keys(doc.components.schemas.DeletedAssetSummary.properties)).toEqual([
      'id',
      'type',
      'title',
      'deleted_at_ms',
      'deleted_by',
    ])
  })
})
