// Deleting and restoring assets through /api/v0 on a real server, on LevelDB and on PostgreSQL:
// a soft delete closes live sockets with 4404 and makes the document 404 everywhere (upgrade,
// every collab REST route, asset content, collab-token) without touching it; restore brings back
// the same bytes and history; a hard delete erases every record of the document (checked in the
// store itself) and is final. Only owners and admins may; every refusal changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { getAssetRecord } from '../../src/control/assets.js'
import { docIdOf } from '../../src/storage/doc-store.js'
import { asset, call, grant, makeWorld, type World } from '../api/helpers.js'
import { BACKENDS } from '../helpers/backends.js'
import { rawClient, upgradeStatus } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const collect = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

describe.each(BACKENDS)('asset delete and restore on $name', (backend) => {
  let h: Harness
  let tags = 0
  beforeAll(async () => {
    h = await startTandem({ ...(await backend.overrides()), historyCheckpointEvery: 1 })
  }, 60_000)
  afterAll(async () => h?.close())

  /** A world whose document has content from a live provider, and an edit token for it. */
  async function editedWorld(text: string): Promise<{ w: World; token: string; url: string }> {
    const w = await makeWorld(h, `${backend.name}-${++tags}`)
    await grant(h, w.doc.id, w.users.owner, 'edit')
    const minted = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, {
      key: w.keys.owner,
      body: { access: 'edit' },
    })
    expect(minted.status).toBe(200)
    const token = minted.body.token as string
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, w.doc.id, token, ydoc)
    await synced(p)
    ydoc.getText('t').insert(0, text)
    await eventually(async () => {
      const r = await rest('GET', 'ydoc', w, token)
      const d = new Y.Doc()
      Y.applyUpdate(d, Buffer.from(((await r.json()) as { doc: string }).doc, 'base64'))
      expect(d.getText('t').toString()).toBe(text)
    })
    p.destroy()
    // a named version: kept by a soft delete, erased by a hard one
    expect((await rest('POST', 'versions', w, token, { name: 'before delete' })).status).toBe(201)
    return { w, token, url: `${h.wsUrl}/${w.workspaceId}/${w.doc.id}?yauth=${token}` }
  }

  const rest = (method: string, name: string, w: World, token: string, body?: unknown) =>
    fetch(`${h.httpUrl}/${name}/v1/${w.workspaceId}/${w.doc.id}?yauth=${token}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    })

  /** What a reader sees of the document: bytes, text, activity. */
  async function snapshotOf(w: World, token: string) {
    const ydoc = await (await rest('GET', 'ydoc', w, token)).json()
    const activity = await (await rest('GET', 'activity', w, token)).json()
    const content = await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.owner })
    const versions = (await (await rest('GET', 'versions', w, token)).json()) as { versions: unknown[] }
    return { ydoc, activity, content: content.body, versions }
  }

  it('a soft delete closes live sockets with 4404, answers 404 everywhere, is idempotent, and restore brings back the same document', async () => {
    const { w, token, url } = await editedWorld('hello before delete')
    const before = await snapshotOf(w, token)
    expect(before.content.content).toContain('hello before delete')
    expect(before.versions.versions).toHaveLength(1)
    const live = await rawClient(url)

    const del = await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}`, { key: w.keys.admin })
    expect(del.status).toBe(200)
    expect(del.body).toEqual({ deleted_at_ms: expect.any(Number), hard: false, by: w.users.admin })
    expect((await live.closed).code).toBe(4404)

    expect(await upgradeStatus(url)).toBe(404)
    for (const [method, name, body] of [
      ['GET', 'ydoc'],
      ['PATCH', 'ydoc', { update: Buffer.from(Y.encodeStateAsUpdate(new Y.Doc())).toString('base64') }],
      ['GET', 'activity'],
      ['GET', 'changeset'],
      ['POST', 'rollback', { to: 0 }],
      ['GET', 'versions'],
      ['POST', 'versions', { name: 'after delete' }],
    ] as [string, string, unknown?][]) {
      const r = await rest(method, name, w, token, body)
      expect([name, method, r.status]).toEqual([name, method, 404])
      expect(await r.json()).toEqual({ error: 'document deleted', code: 'doc_deleted' })
    }
    expect(
      (await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.owner })).status,
    ).toBe(404)
    expect(
      (await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, { key: w.keys.owner, body: {} })).status,
    ).toBe(404)
    const listed = await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/assets`, { key: w.keys.owner })
    expect(listed.body.assets.map((a: { id: string }) => a.id)).not.toContain(w.doc.id)

    // nothing of the content was touched
    const docId = docIdOf(w.workspaceId, w.doc.id)
    expect(await h.server.store.exists(docId)).toBe(true)

    // a repeat answers the same record (also from the other role)
    const again = await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}`, { key: w.keys.owner })
    expect(again.status).toBe(200)
    expect(again.body).toEqual(del.body)

    const restored = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys.owner })
    expect(restored.status).toBe(200)
    expect(restored.body).toEqual({ asset_id: w.doc.id, restored: true })
    expect(await snapshotOf(w, token)).toEqual(before)
    // the same token opens it again, and a repeated restore changes nothing
    const back = await rawClient(url)
    back.ws.close()
    expect((await call(h, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys.owner })).body).toEqual({
      asset_id: w.doc.id,
      restored: false,
    })
  }, 60_000)

  it('only owners and admins may delete or restore; unknown ids are 404; a refusal changes nothing', async () => {
    const { w, token, url } = await editedWorld('keep me')
    const before = await snapshotOf(w, token)
    for (const who of ['member', 'stranger'] as const) {
      for (const path of [`/api/v0/assets/${w.doc.id}`, `/api/v0/assets/${w.doc.id}?hard=true`]) {
        expect((await call(h, 'DELETE', path, { key: w.keys[who] })).status).toBe(403)
      }
      expect((await call(h, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys[who] })).status).toBe(403)
    }
    expect((await call(h, 'DELETE', '/api/v0/assets/no-such-asset', { key: w.keys.owner })).status).toBe(404)
    expect((await call(h, 'POST', '/api/v0/assets/no-such-asset/restore', { key: w.keys.owner })).status).toBe(404)
    expect((await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}`)).status).toBe(401)
    const bad = await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}?hard=maybe`, { key: w.keys.owner })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0]).toMatchObject({ type: 'bool_parsing', loc: ['query', 'hard'] })
    expect(await snapshotOf(w, token)).toEqual(before)
    const { deletion } = await getAssetRecord(h.server.deps.control.store, w.doc.id)
    expect(deletion).toBeUndefined()
    const c = await rawClient(url)
    c.ws.close()
  }, 60_000)

  it('a hard delete erases the document, its log, snapshots and history in the store, and is final', async () => {
    const { w, token, url } = await editedWorld('erase me')
    const docId = docIdOf(w.workspaceId, w.doc.id)
    expect(await h.server.versions.list(docId)).toHaveLength(1)
    const made = await rest('POST', 'suggestions', w, token, { format: 'text', content: 'a suggestion' })
    expect(made.status).toBe(201)
    expect(await h.server.suggestions.list(docId)).toHaveLength(1)
    // history records exist (activity checkpoints them), and a branch of the document too
    expect((await rest('GET', 'activity', w, token)).status).toBe(200)
    await eventually(async () => expect(await h.server.store.readMeta(docId, 'history')).not.toBeNull())
    const draft = await h.token(w.workspaceId, w.doc.id, { branch: 'draft' })
    const onDraft = await rawClient(`${h.wsUrl}/${w.workspaceId}/${w.doc.id}?yauth=${draft}`)
    await eventually(async () =>
      expect(await collect(h.server.store.listDocs(`${w.workspaceId}/${w.doc.id}/`))).toHaveLength(2),
    )
    const live = await rawClient(url)

    const del = await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}?hard=true`, { key: w.keys.owner })
    expect(del.status).toBe(200)
    expect(del.body).toEqual({ deleted_at_ms: expect.any(Number), hard: true, by: w.users.owner })
    expect((await live.closed).code).toBe(4404)
    expect((await onDraft.closed).code).toBe(4404)

    // every store record of every branch is gone, checked in the store itself
    expect(await collect(h.server.store.listDocs(`${w.workspaceId}/${w.doc.id}/`))).toEqual([])
    for (const id of [docId, docIdOf(w.workspaceId, w.doc.id, 'draft')]) {
      expect(await h.server.store.load(id)).toEqual({ snapshot: null, updates: [], lastSeq: 0 })
      expect(await collect(h.server.store.readLog(id))).toEqual([])
      expect(await h.server.store.readMeta(id, 'history')).toBeNull()
      expect(await h.server.versions.list(id)).toEqual([])
      expect(await h.server.suggestions.list(id)).toEqual([])
    }
    expect(h.server.registry.loaded(docId)).toBeUndefined()
    // the document's suggestions answer like every collab route of a deleted document
    const gone = await rest('GET', 'suggestions', w, token)
    expect([gone.status, ((await gone.json()) as { code: string }).code]).toEqual([404, 'doc_deleted'])
    // the asset record is gone; its id is a tombstone that answers 404 everywhere
    const { asset: record, deletion } = await getAssetRecord(h.server.deps.control.store, w.doc.id)
    expect(record).toBeUndefined()
    expect(deletion).toMatchObject({ hard: true, erasedAtMs: expect.any(Number) })
    expect((await call(h, 'POST', `/api/v0/assets/${w.doc.id}/restore`, { key: w.keys.owner })).status).toBe(404)
    expect((await call(h, 'DELETE', `/api/v0/assets/${w.doc.id}`, { key: w.keys.owner })).status).toBe(404)
    expect(
      (await call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${w.doc.id}`, { key: w.keys.owner })).status,
    ).toBe(404)
    expect(await upgradeStatus(url)).toBe(404)
    const r = await rest('GET', 'ydoc', w, token)
    expect(r.status).toBe(404)
    expect(((await r.json()) as { code: string }).code).toBe('doc_deleted')
    // and nothing came back once the rooms' unload delay passed
    await new Promise((res) => setTimeout(res, 3 * h.config.roomUnloadDelayMs))
    expect(await h.server.store.exists(docId)).toBe(false)
  }, 60_000)

  it('both operations are in the OpenAPI document', async () => {
    const doc = (await call(h, 'GET', '/api/v0/openapi.json')).body
    const del = doc.paths['/api/v0/assets/{asset_id}'].delete
    expect(del.operationId).toBe('delete_asset')
    expect(del.parameters).toContainEqual({
      name: 'hard',
      in: 'query',
      required: false,
      schema: expect.objectContaining({ type: 'boolean', default: false }),
    })
    expect(Object.keys(del.responses).sort()).toEqual(['200', '401', '403', '404', '422'])
    expect(doc.components.schemas.AssetDeleted.required.sort()).toEqual(['by', 'deleted_at_ms', 'hard'])
    expect(doc.paths['/api/v0/assets/{asset_id}/restore'].post.operationId).toBe('restore_asset')
  })

  it('a file asset deletes and restores by the same rules', async () => {
    const w = await makeWorld(h, `${backend.name}-file-${++tags}`)
    const file = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'file',
      title: 'notes.txt',
      text: 'file body',
      defaultAccess: 'view',
    })
    const content = () => call(h, 'GET', `/api/v0/tools/asset/content?asset_id=${file.id}`, { key: w.keys.member })
    expect((await content()).body.content).toBe('file body')
    expect((await call(h, 'DELETE', `/api/v0/assets/${file.id}`, { key: w.keys.member })).status).toBe(403)
    expect((await call(h, 'DELETE', `/api/v0/assets/${file.id}`, { key: w.keys.owner })).status).toBe(200)
    expect((await content()).status).toBe(404)
    expect((await call(h, 'POST', `/api/v0/assets/${file.id}/restore`, { key: w.keys.admin })).status).toBe(200)
    expect((await content()).body.content).toBe('file body')
    // a soft-deleted asset may still be hard deleted
    expect((await call(h, 'DELETE', `/api/v0/assets/${file.id}`, { key: w.keys.owner })).status).toBe(200)
    expect((await call(h, 'DELETE', `/api/v0/assets/${file.id}?hard=true`, { key: w.keys.owner })).body).toMatchObject({
      hard: true,
    })
    expect((await content()).status).toBe(404)
    expect((await getAssetRecord(h.server.deps.control.store, file.id)).asset).toBeUndefined()
  }, 60_000)
})
