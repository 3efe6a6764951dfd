// @tandem/client against a real server (demo world, 10 s tokens): every method against its endpoint,
// the answer checked with the schema the server validates with; TandemError for refusals; a live
// document kept open three token lifetimes on one socket; `deleted` on 4404; `unauthorized` after
// a re-mint is refused.
import WebSocket from 'ws'
import * as Y from 'yjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AssetContentResponse } from '@tandem/api/v0/asset-content'
import { AssetDeletedOut, AssetRestoredOut } from '@tandem/api/v0/assets'
import { CollabTokenResponse } from '@tandem/api/v0/collab-token'
import { InsertDataResponse, ListTablesResponse, Row } from '@tandem/api/v0/databases'
import { MeOut, WorkspaceAssetsOut, WorkspaceDeletedAssetsOut } from '@tandem/api/v0/directory'
import { SourceReadiness } from '@tandem/api/v0/sources'
import { WorkspaceToolRegistryOut } from '@tandem/api/v0/tool-registry'
import { CreatedWebhookOut, DeliveryListOut, WebhookListOut } from '@tandem/api/v0/webhooks'
import { TandemClient, TandemError, type LiveDocument } from '@tandem/client'
import { DEMO_DATABASE_ID, seedDemoDatabase } from '../../src/demo/database.js'
import { DEMO_USER, seedDemo } from '../../src/demo/world.js'
import { createApiKey } from '../../src/control/api-keys.js'
import { admin, asset } from '../api/helpers.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

let h: Harness
let client: TandemClient
let workspaceId: string
const open: LiveDocument[] = []

/** Counts the sockets a document opens: renewal in band must not need a second one. */
function countingWs(): { count: () => number; Ws: typeof WebSocket } {
  let n = 0
  class Counted extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args)
      n++
    }
  }
  return { count: () => n, Ws: Counted as unknown as typeof WebSocket }
}
const polyfill = (Ws: typeof WebSocket) => Ws as unknown as typeof globalThis.WebSocket

async function newDoc(title: string): Promise<string> {
  return (await asset(h, { workspaceId, type: 'generic_doc', title, defaultAccess: 'edit' })).id
}

beforeAll(async () => {
  h = await startTandem({ tokenTtlSec: 10, webhookAllowPrivate: true, siteSweepDelayMs: 0 })
  const world = await seedDemoDatabase(h.server.deps, await seedDemo(h.server.deps))
  workspaceId = world.workspaceId
  client = new TandemClient({ baseUrl: `http://127.0.0.1:${h.server.apiPort}/`, apiKey: world.apiKey })
}, 60_000)
afterAll(async () => {
  for (const d of open) d.destroy()
  await h.close()
})

describe('TandemClient', () => {
  it('calls every /api/v0 endpoint and returns what its schema describes', async () => {
    const me = MeOut.parse(await client.me())
    expect(me.user_id).toBe(DEMO_USER)
    expect(me.workspaces.map((w) => w.id)).toContain(workspaceId)
    const assets = WorkspaceAssetsOut.parse(await client.workspaceAssets(workspaceId))
    expect(assets.assets.map((a) => a.id)).toEqual(expect.arrayContaining(['demo-welcome', DEMO_DATABASE_ID]))

    const token = CollabTokenResponse.parse(await client.collabToken('demo-welcome', { access: 'edit' }))
    expect(token.access_type).toBe('rw')
    expect(token.expires_at_ms - Date.now()).toBeLessThanOrEqual(10_000)
    expect((await client.collabToken('demo-welcome')).access_type).toBe('r') // `view` by default

    const plain = AssetContentResponse.parse(await client.assetContent('demo-welcome'))
    expect(plain.content.split('\n')[0]).toBe('Welcome to Tandem')
    expect(plain.comments ?? null).toBeNull()
    const withComments = AssetContentResponse.parse(await client.assetContent('demo-welcome', { comments: true }))
    expect(withComments.comments).toHaveLength(3)

    const tables = ListTablesResponse.parse(await client.tables(DEMO_DATABASE_ID))
    expect(tables.tables.map((t) => t.name).sort()).toEqual(['customers', 'orders'])
    const rows = await client.rows(DEMO_DATABASE_ID, 'customers', {
      select: ['id', 'name', 'country'],
      where: { id: [{ gte: 10 }, { not: { in: [12, 13] } }], country: { is: 'not_null' } },
      order: [{ column: 'id', direction: 'desc' }],
      limit: 5,
      offset: 1,
    })
    rows.forEach((r) => Row.parse(r))
    const ids = rows.map((r) => r.id as number)
    expect(ids).toHaveLength(5)
    expect(ids).toEqual([...ids].sort((a, b) => b - a))
    expect(ids.every((id) => id >= 10 && id !== 12 && id !== 13)).toBe(true)
    expect(Object.keys(rows[0]!)).toEqual(['id', 'name', 'country'])
    expect(
      (await client.rows(DEMO_DATABASE_ID, 'customers', { where: { name: { ilike: '*lovelace*' } } })).every((r) =>
        /lovelace/i.test(String(r.name)),
      ),
    ).toBe(true)

    const inserted = InsertDataResponse.parse(
      await client.insertRows(
        DEMO_DATABASE_ID,
        'customers',
        [{ id: 9001, name: 'Sdk, "Quoted"', email: 'sdk@example.com' }],
        { return_representation: true },
      ),
    )
    expect(inserted.data).toEqual([expect.objectContaining({ id: 9001, name: 'Sdk, "Quoted"' })])
    expect(
      InsertDataResponse.parse(
        await client.insertRows(DEMO_DATABASE_ID, 'customers', { id: 9002, name: 'Two', email: 'two@example.com' }),
      ),
    ).toEqual({ data: null })
    // an in-list value with a comma and quotes survives the quoting
    expect(
      (await client.rows(DEMO_DATABASE_ID, 'customers', { where: { name: { in: ['Sdk, "Quoted"', 'Two'] } } })).map(
        (r) => r.id,
      ),
    ).toEqual([9001, 9002])

    const registry = WorkspaceToolRegistryOut.parse(await client.toolRegistry(workspaceId))
    expect(registry.workspace_id).toBe(workspaceId)
    const patched = WorkspaceToolRegistryOut.parse(
      await client.updateToolRegistry(workspaceId, { default_visibility: 'hidden' }),
    )
    expect(patched.default_visibility).toBe('hidden')

    SourceReadiness.parse(await client.sources())

    const hook = CreatedWebhookOut.parse(
      await client.createWebhook(workspaceId, { url: 'http://127.0.0.1:9/hook', events: ['version.created'] }),
    )
    expect(hook.secret).toMatch(/^whsec_/)
    expect(WebhookListOut.parse(await client.webhooks(workspaceId)).webhooks.map((w) => w.id)).toContain(hook.id)
    DeliveryListOut.parse(await client.webhookDeliveries(workspaceId, hook.id))
    await client.deleteWebhook(workspaceId, hook.id)
    expect((await client.webhooks(workspaceId)).webhooks.map((w) => w.id)).not.toContain(hook.id)

    const v = await client.createVersion('demo-welcome', 'first draft')
    expect(v).toMatchObject({ name: 'first draft', by: DEMO_USER })
    expect((await client.versions('demo-welcome')).map((x) => x.id)).toContain(v.id)
    const got = await client.version('demo-welcome', v.id)
    const copy = new Y.Doc()
    Y.applyUpdate(copy, got.doc)
    expect(copy.getXmlFragment('default').length).toBeGreaterThan(0)
    const renamed = await client.renameVersion('demo-welcome', v.id, 'second', v.updated_at_ms)
    expect(renamed.name).toBe('second')
    const stale = await client.renameVersion('demo-welcome', v.id, 'third', v.updated_at_ms).catch((e: unknown) => e)
    expect(stale).toBeInstanceOf(TandemError)
    expect(stale).toMatchObject({ status: 409, code: 'conflict', body: { version: { name: 'second' } } })
    await client.deleteVersion('demo-welcome', v.id)
    expect((await client.versions('demo-welcome')).map((x) => x.id)).not.toContain(v.id)

    const doomed = await newDoc('sdk doomed')
    expect(AssetDeletedOut.parse(await client.deleteAsset(doomed))).toMatchObject({ hard: false, by: DEMO_USER })
    expect(WorkspaceDeletedAssetsOut.parse(await client.deletedAssets(workspaceId)).assets.map((a) => a.id)).toContain(
      doomed,
    )
    expect(AssetRestoredOut.parse(await client.restoreAsset(doomed))).toEqual({ asset_id: doomed, restored: true })
    expect((await client.deleteAsset(doomed, { hard: true })).hard).toBe(true)
  })

  it("reads and writes a document's content and reviews a suggestion hunk by hunk", async () => {
    const id = await newDoc('sdk content')
    const doc = client.document(id)
    const w = await doc.writeContent({ format: 'markdown', content: 'One.\n\nTwo.\n\nThree.\n' })
    expect(w).toMatchObject({ applied: true, root: 'default' })
    const read = await doc.content()
    expect(read).toMatchObject({ format: 'markdown', content: 'One.\n\nTwo.\n\nThree.\n', base: w.base })
    expect((await doc.content('prosemirror')).content).toMatchObject({ type: 'doc' })
    // the demo user suggests; ada reviews (an author cannot accept their own)
    const made = await doc.suggest({ format: 'markdown', content: 'One!\n\nTwo.\n\nThree!\n', base: read.base })
    expect(made.hunks).toHaveLength(2)
    expect((await doc.suggestions('open')).map((s) => s.id)).toEqual([made.suggestion.id])
    const shown = await doc.suggestion(made.suggestion.id)
    expect(shown.hunks.map((x) => x.after)).toEqual(['One!\n', 'Three!\n'])
    const refused = await doc.acceptSuggestion(made.suggestion.id).catch((e: unknown) => e)
    expect(refused).toMatchObject({ status: 403 })
    const { store } = h.server.deps.control
    const ada = new TandemClient({
      baseUrl: `http://127.0.0.1:${h.server.apiPort}/`,
      apiKey: (await createApiKey(store, 'ada@tandem.local', 'sdk test', Date.now())).key,
    })
    const accepted = await ada.document(id).acceptSuggestion(made.suggestion.id, [made.hunks[1]!])
    expect(accepted).toMatchObject({ applied: true, suggestion: { accepted_hunks: [made.hunks[1]] } })
    const rejected = await ada.document(id).rejectSuggestion(made.suggestion.id)
    expect(rejected.suggestion.status).toBe('partially_accepted')
    expect((await doc.content()).content).toBe('One.\n\nTwo.\n\nThree!\n')
  })

  it('throws TandemError with the status, a code and the body detail', async () => {
    const bad = new TandemClient({
      baseUrl: `http://127.0.0.1:${h.server.apiPort}`,
      apiKey: 'tdm_0000000000000000_bad',
    })
    const e401 = await bad.me().catch((e: unknown) => e)
    expect(e401).toBeInstanceOf(TandemError)
    expect(e401).toMatchObject({ status: 401, code: 'unauthorized' })
    expect(typeof (e401 as TandemError).detail).toBe('string')

    // asset content answers {"message"}; a 422 carries the pydantic list
    await expect(client.assetContent('no-such-asset')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'Asset not found',
    })
    const e422 = (await client
      .rows(DEMO_DATABASE_ID, 'customers', { limit: -1 })
      .catch((e: unknown) => e)) as TandemError
    expect(e422.status).toBe(422)
    expect(e422.detail).toEqual([expect.objectContaining({ loc: ['query', 'limit'], type: 'greater_than_equal' })])

    const unreachable = new TandemClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'x' })
    await expect(unreachable.me()).rejects.toMatchObject({ status: 0, code: 'network' })
  })
})

describe('openDocument', () => {
  it('keeps one socket open three token lifetimes (10 s) and receives every remote edit', async () => {
    const docId = await newDoc('sdk long-lived')
    const { count, Ws } = countingWs()
    const live = await client.openDocument(docId, { WebSocketPolyfill: polyfill(Ws) })
    open.push(live)
    const tokens: number[] = []
    live.on('token', (t) => tokens.push(t.expires_at_ms))
    await live.whenSynced()

    const writer = await client.openDocument(docId, { WebSocketPolyfill: polyfill(WebSocket) })
    open.push(writer)
    await writer.whenSynced()
    const sent: number[] = []
    const start = Date.now()
    while (Date.now() - start < 31_000) {
      sent.push(sent.length)
      writer.doc.getArray<number>('edits').push([sent.length - 1])
      await new Promise((r) => setTimeout(r, 500))
    }
    await eventually(() => expect(live.doc.getArray<number>('edits').toArray()).toEqual(sent), 5_000)
    expect(count()).toBe(1) // never reconnected
    expect(live.provider.wsconnected).toBe(true)
    expect(tokens.length).toBeGreaterThanOrEqual(5) // renewed about every 5 s
    expect(live.token().expires_at_ms).toBeGreaterThan(Date.now())
  }, 60_000)

  // Node 22 and later have a global WebSocket, Node 20 none: each Node gets the half that applies.
  const globalWs = typeof (globalThis as { WebSocket?: unknown }).WebSocket === 'function'

  it.skipIf(globalWs)(
    'says what is missing where there is no global WebSocket (Node 20 without a polyfill)',
    async () => {
      await expect(client.openDocument('demo-welcome')).rejects.toThrow(/WebSocketPolyfill/)
    },
  )

  it.runIf(globalWs)(
    'opens a document on the global WebSocket where Node has one (22 and later), no polyfill',
    async () => {
      const live = await client.openDocument('demo-welcome')
      open.push(live)
      await live.whenSynced()
      expect(live.provider.wsconnected).toBe(true)
    },
  )

  it('emits deleted on 4404 and does not reconnect', async () => {
    const docId = await newDoc('sdk deleted')
    const { count, Ws } = countingWs()
    const live = await client.openDocument(docId, { WebSocketPolyfill: polyfill(Ws) })
    open.push(live)
    await live.whenSynced()
    const deleted = new Promise<void>((resolve) => live.on('deleted', resolve))
    await client.deleteAsset(docId)
    await deleted
    expect(live.provider.shouldConnect).toBe(false)
    await new Promise((r) => setTimeout(r, 1_500))
    expect(count()).toBe(1)
  })

  it('re-mints once after 4401 and emits unauthorized when the new token is refused too', async () => {
    const docId = await newDoc('sdk revoked')
    const live = await client.openDocument(docId, { WebSocketPolyfill: polyfill(WebSocket) })
    open.push(live)
    await live.whenSynced()
    const minted: string[] = []
    live.on('token', (t) => minted.push(t.token))
    const refused = new Promise<TandemError>((resolve) => live.on('unauthorized', resolve))
    // every token of the user for this document issued in the next hour is refused, so the re-mint is too
    const before = String(Math.floor(Date.now() / 1000) + 3600)
    const r = await admin(
      h.config,
      'tokens',
      'revoke',
      '--sub',
      DEMO_USER,
      '--org',
      workspaceId,
      '--doc',
      docId,
      '--before',
      before,
    )
    expect(r.code).toBe(0)
    const error = await refused
    expect(error).toBeInstanceOf(TandemError)
    expect(error.status).toBe(401)
    expect(minted).toHaveLength(1)
    expect(live.provider.shouldConnect).toBe(false)
  })
})
