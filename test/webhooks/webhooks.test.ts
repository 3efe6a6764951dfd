// Webhooks end to end on a real server: registration over /api/v0, Standard Webhooks signatures
// checked by the reference library, document.updated debounced from a real provider, a receiver
// outage, retries ending in `failed`, and rows.inserted from a real PGlite database asset.
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { asset, call, grant, makeWorld, type World } from '../api/helpers.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'
import { startReceiver, type Receiver } from './receiver.js'

describe('webhooks', () => {
  let h: Harness
  let w: World
  const receivers: Receiver[] = []
  const cleanups: (() => Promise<void>)[] = []
  beforeAll(async () => {
    h = await startTandem({
      webhookAllowPrivate: true,
      webhookDebounceMs: 500,
      webhookTimeoutMs: 2000,
      webhookRetryHours: 0.002,
    })
    w = await makeWorld(h, 'webhooks')
  })
  afterAll(async () => h.close())
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close()
    for (const fn of cleanups.splice(0)) await fn()
  })

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver()
    receivers.push(r)
    return r
  }

  async function register(url: string, events: string[]): Promise<{ id: string; secret: string }> {
    const res = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.admin,
      body: { url, events, description: 'test' },
    })
    expect(res.status).toBe(201)
    return res.body
  }

  const unregister = (id: string) =>
    call(h, 'DELETE', `/api/v0/workspaces/${w.workspaceId}/webhooks/${id}`, { key: w.keys.owner })

  it('registers for owners and admins, returns the secret only once, lists and deletes', async () => {
    const r = await receiver()
    const created = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.owner,
      body: { url: r.url, events: ['document.updated'] },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ url: r.url, events: ['document.updated'], description: null })
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/)
    expect(Buffer.from(created.body.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24)

    const list = await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/webhooks`, { key: w.keys.admin })
    expect(list.status).toBe(200)
    const listed = list.body.webhooks.find((x: { id: string }) => x.id === created.body.id)
    expect(listed).toEqual({
      id: created.body.id,
      url: r.url,
      events: ['document.updated'],
      description: null,
      created_at: created.body.created_at,
    })
    expect(JSON.stringify(list.body)).not.toContain('whsec_')

    for (const who of ['member', 'stranger'] as const) {
      expect((await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/webhooks`, { key: w.keys[who] })).status).toBe(
        403,
      )
      expect(
        (
          await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
            key: w.keys[who],
            body: { url: r.url, events: ['rows.inserted'] },
          })
        ).status,
      ).toBe(403)
    }
    expect((await call(h, 'GET', `/api/v0/workspaces/nope/webhooks`, { key: w.keys.owner })).status).toBe(404)

    const bad = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.owner,
      body: { url: 'ftp://example.com/x', events: ['bogus'] },
    })
    expect(bad.status).toBe(422)
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([['body', 'events', 0]])
    const scheme = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.owner,
      body: { url: 'ftp://example.com/x', events: ['rows.inserted'] },
    })
    expect(scheme.status).toBe(422)
    expect(scheme.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'url'] })

    expect((await unregister(created.body.id)).status).toBe(204)
    expect((await unregister(created.body.id)).status).toBe(404)
  })

  it('delivers every event, in order per document, once a receiver that was down comes back', async () => {
    // Its own server with the default retry window: with this file's 7.2 s one, an early event could
    // be marked failed before the receiver is back on a loaded machine (seen once in CI).
    const h = await startTandem({ webhookAllowPrivate: true, webhookDebounceMs: 500, webhookTimeoutMs: 2000 })
    cleanups.push(() => h.close())
    const w = await makeWorld(h, 'webhooks-outage')
    const r = await receiver()
    const created = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.admin,
      body: { url: r.url, events: ['document.updated'] },
    })
    expect(created.status).toBe(201)
    const hook = created.body as { id: string }
    await r.down()
    const docs = ['outage-a', 'outage-b']
    const ydocs = await Promise.all(
      docs.map(async (d) => {
        const y = new Y.Doc()
        await synced(h.provider(w.workspaceId, d, await h.token(w.workspaceId, d), y))
        return y
      }),
    )
    const deliveries = async () =>
      (
        await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/webhooks/${hook.id}/deliveries`, {
          key: w.keys.admin,
        })
      ).body.deliveries as { attempts: number }[]
    // three bursts per document, each in its own window: the next starts once the last one's
    // events exist (a fixed pause merged two windows on a loaded machine: 4 events, not 6)
    for (let burst = 0; burst < 3; burst++) {
      for (const y of ydocs) y.getText('t').insert(0, `b${burst}`)
      await eventually(async () => expect((await deliveries()).length).toBe(2 * (burst + 1)), 20_000)
    }
    await eventually(async () => {
      const res = await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/webhooks/${hook.id}/deliveries`, {
        key: w.keys.admin,
      })
      expect(res.body.deliveries.length).toBe(6)
      expect(res.body.deliveries.some((d: { attempts: number }) => d.attempts > 0)).toBe(true)
    }, 20_000)
    await r.up()
    await eventually(() => expect(new Set(r.accepted.map((e) => e.headers['webhook-id'])).size).toBe(6), 30_000)
    for (const d of docs) {
      const seen = r.accepted.filter((e) => e.json.data.doc_id === d).map((e) => e.json.data.first_at_ms as number)
      expect(seen).toEqual([...seen].sort((a, b) => a - b))
    }
  })

  it('retries a receiver answering 500 with the same webhook-id, then marks the delivery failed', async () => {
    const r = await receiver()
    r.status = 500
    const hook = await register(r.url, ['document.updated'])
    const y = new Y.Doc()
    await synced(h.provider(w.workspaceId, 'failing-doc', await h.token(w.workspaceId, 'failing-doc'), y))
    y.getText('t').insert(0, 'boom')
    // --webhook-retry-hours 0.002 (7.2 s): attempts at about 0, 1, 3 s, then failed
    await eventually(async () => {
      const res = await call(h, 'GET', `/api/v0/workspaces/${w.workspaceId}/webhooks/${hook.id}/deliveries`, {
        key: w.keys.admin,
      })
      expect(res.body.deliveries).toHaveLength(1)
      expect(res.body.deliveries[0]).toMatchObject({
        type: 'document.updated',
        status: 'failed',
        last_status_code: 500,
        next_at: null,
      })
    }, 30_000)
    expect(r.all.length).toBeGreaterThanOrEqual(2)
    expect(new Set(r.all.map((e) => e.headers['webhook-id'])).size).toBe(1)
    const metrics = await call(h, 'GET', '/metrics')
    expect(metrics.body).toMatch(/tandem_webhook_deliveries_total\{status="retry"\} [1-9]/)
    expect(metrics.body).toMatch(/tandem_webhook_deliveries_total\{status="failed"\} [1-9]/)
    expect(metrics.body).toMatch(/tandem_webhook_outbox_depth \d+/)
    await unregister(hook.id)
  })

  it('sends rows.inserted for rows inserted through the API into a database asset', async () => {
    const r = await receiver()
    const hook = await register(r.url, ['rows.inserted'])
    const db = await asset(h, {
      workspaceId: w.workspaceId,
      type: 'database',
      title: 'rows',
      database: { provider: 'pglite' },
    })
    await grant(h, db.id, w.users.member, 'edit')
    const database = h.server.deps.databases.database({ id: db.id, provider: 'pglite' })
    await database.ready() // PGlite's start can outlast a request's wait on a loaded machine
    await database.run({ text: 'CREATE TABLE notes (id int primary key, body text)', values: [] })
    const insert = await call(h, 'POST', `/api/v0/databases/${db.id}/data/notes`, {
      key: w.keys.member,
      body: {
        data: [
          { id: 1, body: 'a' },
          { id: 2, body: 'b' },
        ],
      },
    })
    expect(insert.status).toBe(200)
    await eventually(() => expect(r.accepted).toHaveLength(1), 20_000)
    const [e] = r.accepted
    expect(new Webhook(hook.secret).verify(e!.body, e!.headers as Record<string, string>)).toEqual({
      type: 'rows.inserted',
      timestamp: e!.json.timestamp,
      data: { asset_id: db.id, table: 'notes', count: 2 },
    })
    await unregister(hook.id)
  })

  it('sends version.created, asset.deleted and asset.restored, each signed, for the lifecycle of one document', async () => {
    const r = await receiver()
    const hook = await register(r.url, ['version.created', 'asset.deleted', 'asset.restored'])
    const doc = await asset(h, { workspaceId: w.workspaceId, type: 'generic_doc', title: 'lifecycle events' })
    const token = await h.token(w.workspaceId, doc.id, { sub: w.users.owner })
    const created = await fetch(`${h.httpUrl}/versions/v1/${w.workspaceId}/${doc.id}?yauth=${token}`, {
      method: 'POST',
      body: JSON.stringify({ name: 'v1' }),
    })
    expect(created.status).toBe(201)
    const version = (await created.json()) as { id: string; created_at_ms: number }
    expect((await call(h, 'DELETE', `/api/v0/assets/${doc.id}`, { key: w.keys.owner })).status).toBe(200)
    expect((await call(h, 'POST', `/api/v0/assets/${doc.id}/restore`, { key: w.keys.owner })).status).toBe(200)
    expect((await call(h, 'DELETE', `/api/v0/assets/${doc.id}?hard=true`, { key: w.keys.owner })).status).toBe(200)
    await eventually(() => expect(r.accepted).toHaveLength(4), 20_000)
    const events = r.accepted.map(
      (e) =>
        new Webhook(hook.secret).verify(e.body, e.headers as Record<string, string>) as {
          type: string
          data: Record<string, unknown>
        },
    )
    const ids = { asset_id: doc.id, workspace_id: w.workspaceId }
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        'version.created',
        { ...ids, version_id: version.id, created_by: w.users.owner, created_at_ms: version.created_at_ms },
      ],
      ['asset.deleted', { ...ids, by: w.users.owner, at_ms: expect.any(Number), hard: false }],
      ['asset.restored', { ...ids, by: w.users.owner, at_ms: expect.any(Number) }],
      ['asset.deleted', { ...ids, by: w.users.owner, at_ms: expect.any(Number), hard: true }],
    ])
    await unregister(hook.id)
  })
})

describe('document.updated with the default debounce', () => {
  let h: Harness
  let w: World
  const receivers: Receiver[] = []
  beforeAll(async () => {
    h = await startTandem({ webhookAllowPrivate: true })
    w = await makeWorld(h, 'webhook-debounce')
  })
  afterAll(async () => {
    for (const r of receivers) await r.close()
    await h.close()
  })

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver()
    receivers.push(r)
    return r
  }

  async function register(url: string, events: string[]): Promise<{ id: string; secret: string }> {
    const res = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.admin,
      body: { url, events },
    })
    expect(res.status).toBe(201)
    return res.body
  }

  const unregister = (id: string) =>
    call(h, 'DELETE', `/api/v0/workspaces/${w.workspaceId}/webhooks/${id}`, { key: w.keys.owner })

  it('debounces 100 keystrokes over 3 s from a provider into one or two signed document.updated events', async () => {
    const r = await receiver()
    const hook = await register(r.url, ['document.updated'])
    const doc = 'typed-doc'
    const ydoc = new Y.Doc()
    const p = h.provider(w.workspaceId, doc, await h.token(w.workspaceId, doc, { sub: 'typist@example.com' }), ydoc)
    await synced(p)
    const started = Date.now()
    for (let i = 0; i < 100; i++) {
      ydoc.getText('t').insert(i, 'x')
      await new Promise((res) => setTimeout(res, 30))
    }
    const typedMs = Date.now() - started
    await eventually(() => {
      const events = r.accepted.filter((x) => x.json.type === 'document.updated')
      const last = Math.max(...events.map((e) => e.json.data.last_at_ms as number))
      expect(events.length).toBeGreaterThan(0)
      expect(last).toBeGreaterThanOrEqual(started + typedMs - 500)
    }, 20_000)
    // nothing more comes once the windows have closed
    await new Promise((res) => setTimeout(res, 2500))
    const events = r.accepted.filter((x) => x.json.type === 'document.updated')
    // the default 2 s debounce: a window per 2 s of typing, never one per keystroke
    expect(events.length).toBeGreaterThanOrEqual(1)
    expect(events.length).toBeLessThanOrEqual(Math.ceil(typedMs / 2000))
    const verifier = new Webhook(hook.secret)
    for (const e of events) {
      expect(verifier.verify(e.body, e.headers as Record<string, string>)).toEqual(e.json)
      expect(e.json.data).toMatchObject({
        asset_id: doc,
        workspace_id: w.workspaceId,
        org: w.workspaceId,
        doc_id: doc,
        users: ['typist@example.com'],
      })
    }
    const ids = events.map((e) => e.headers['webhook-id'])
    expect(new Set(ids).size).toBe(ids.length)
    await unregister(hook.id)
  })
})

describe('webhook URLs', () => {
  let h: Harness
  let w: World
  beforeAll(async () => {
    h = await startTandem()
    w = await makeWorld(h, 'webhook-urls')
  })
  afterAll(async () => h.close())

  it('refuses loopback, link-local and private addresses with 422 unless --webhook-allow-private', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://localhost/x',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
      'https://10.1.2.3/x',
      'http://192.168.0.1/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const res = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
        key: w.keys.owner,
        body: { url, events: ['rows.inserted'] },
      })
      expect(res.status, url).toBe(422)
      expect(res.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'url'] })
    }
    const ok = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
      key: w.keys.owner,
      body: { url: 'https://93.184.215.14/hook', events: ['rows.inserted'] },
    })
    expect(ok.status).toBe(201)
  })
})

describe('webhooks across a graceful restart', () => {
  it('gives an attempt in flight back on stop, and the restarted server sends it again with the same id', async () => {
    const { createServer } = await import('node:http')
    const seen: string[] = []
    let hang = true
    const held: import('node:http').ServerResponse[] = []
    const rx = createServer((req, res) => {
      seen.push(String(req.headers['webhook-id']))
      req.resume()
      if (hang) held.push(res)
      else res.writeHead(204).end()
    })
    await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(rx.address() as import('node:net').AddressInfo).port}/hook`
    // a 10 min timeout: only the stop can end the first attempt within the test's time
    const h = await startTandem({ webhookAllowPrivate: true, webhookDebounceMs: 100, webhookTimeoutMs: 600_000 })
    try {
      const w = await makeWorld(h, 'webhook-restart')
      const res = await call(h, 'POST', `/api/v0/workspaces/${w.workspaceId}/webhooks`, {
        key: w.keys.owner,
        body: { url, events: ['document.updated'] },
      })
      expect(res.status).toBe(201)
      const y = new Y.Doc()
      await synced(h.provider(w.workspaceId, 'restart-doc', await h.token(w.workspaceId, 'restart-doc'), y))
      y.getText('t').insert(0, 'x')
      await eventually(() => expect(seen).toHaveLength(1), 20_000)
      hang = false
      await h.restart()
      await eventually(() => expect(seen).toHaveLength(2), 20_000)
      expect(seen[1]).toBe(seen[0])
    } finally {
      await h.close()
      for (const r of held) r.destroy()
      rx.closeAllConnections()
      await new Promise<void>((r) => rx.close(() => r()))
    }
  }, 60_000)
})
