// The control plane while PostgreSQL is down: API calls answer 503 with Retry-After (never a 500,
// never a 401 for a good key), and work again once it is back, the registry PATCHed before intact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, makeWorld } from '../api/helpers.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { eventually, startTandem, type Harness } from '../helpers/tandem.js'

let pgs: PgServer
let h: Harness
beforeAll(async () => {
  pgs = await startPostgres()
  h = await startTandem({ postgresUrl: pgs.url, postgresSchema: 'outage', postgresQueryTimeoutMs: 1500 })
})
afterAll(async () => {
  await h?.close()
  await pgs?.close()
})

describe('control plane on PostgreSQL, server lost', () => {
  it('answers 503 with Retry-After while PostgreSQL is down, and serves again when it is back', async () => {
    const w = await makeWorld(h, 'outage')
    const path = `/api/v0/workspaces/${w.workspaceId}/tool-registry`
    expect(
      (await call(h, 'PATCH', path, { key: w.keys.owner, body: { tool: { tool_id: 'web_browse', enabled: false } } }))
        .status,
    ).toBe(200)
    await pgs.stop()
    try {
      const patch = await call(h, 'PATCH', path, { key: w.keys.owner, body: { default_visibility: 'hidden' } })
      expect(patch.status).toBe(503)
      expect(Number(patch.headers.get('retry-after'))).toBeGreaterThan(0)
      const get = await call(h, 'GET', '/api/v0/me/sources', { key: w.keys.member })
      expect(get.status).toBe(503)
    } finally {
      await pgs.start()
    }
    await eventually(async () => expect((await call(h, 'GET', path, { key: w.keys.owner })).status).toBe(200), 20_000)
    const after = await call(h, 'PATCH', path, { key: w.keys.owner, body: { default_visibility: 'hidden' } })
    expect(after.body).toEqual({
      workspace_id: w.workspaceId,
      default_visibility: 'hidden',
      tools: [{ tool_id: 'web_browse', enabled: false, approval_mode: 'no_approval' }],
    })
  }, 60_000)

  it('a serial update holding its connection while PostgreSQL goes away fails with 503, and the process lives on', async () => {
    const { store } = h.server.deps.control
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let inside!: () => void
    const entered = new Promise<void>((r) => (inside = r))
    const update = store.serial('held/1', async () => {
      await store.get('held/1')
      inside()
      await gate // the transaction's connection sits checked out and idle meanwhile
      await store.batch([{ type: 'put', key: 'held/1', value: 'lost' }])
    })
    const settled = update.then(
      () => 'committed',
      (err: { status?: number }) => err.status,
    )
    await entered
    // the server's shutdown message reaches the idle checked-out connection as an 'error' event
    await pgs.stop()
    await new Promise((r) => setTimeout(r, 500))
    release()
    try {
      expect(await settled).toBe(503)
    } finally {
      await pgs.start()
    }
    await eventually(async () => expect(await store.get('held/1')).toBeUndefined(), 20_000)
  }, 60_000)

  it('a PostgreSQL that hangs (frozen, as in a partition) answers 503 after the query deadline, not never', async () => {
    const w = await makeWorld(h, 'frozen')
    const path = `/api/v0/workspaces/${w.workspaceId}/tool-registry`
    await pgs.freeze()
    try {
      const [patch, get] = await Promise.all([
        call(h, 'PATCH', path, { key: w.keys.owner, body: { tool: { tool_id: 'web_browse', enabled: false } } }),
        call(h, 'GET', path, { key: w.keys.owner }),
      ])
      expect([patch.status, get.status]).toEqual([503, 503])
    } finally {
      await pgs.thaw()
    }
    await eventually(
      async () =>
        expect(
          (
            await call(h, 'PATCH', path, {
              key: w.keys.owner,
              body: { tool: { tool_id: 'web_browse', enabled: false } },
            })
          ).status,
        ).toBe(200),
      20_000,
    )
    expect((await call(h, 'GET', path, { key: w.keys.owner })).body.tools).toEqual([
      { tool_id: 'web_browse', enabled: false, approval_mode: 'no_approval' },
    ])
  }, 60_000)
})
