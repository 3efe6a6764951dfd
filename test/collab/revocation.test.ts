// Revocation reaches live sockets: grant and membership changes made through `tandem admin` close
// (or downgrade) the user's open sockets within a second, and `tandem admin tokens revoke` refuses
// the named tokens from then on, on upgrade, on open sockets and on collab REST.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { runAdmin } from '../../src/cli/admin.js'
import { assetOps } from '../../src/control/assets.js'
import { encodeAuthRefresh, encodeUpdate } from '@tandem/protocol/messages'
import { call, makeWorld, type World } from '../api/helpers.js'
import { rawClient, upgradeStatus, type RawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const run = promisify(execFile)
let h: Harness
beforeAll(async () => {
  h = await startTandem({ revocationRefreshMs: 300 })
})
afterAll(async () => h.close())

async function admin(...args: string[]): Promise<unknown> {
  const lines: string[] = []
  const code = await runAdmin([...args, '--json'], h.config, (s) => lines.push(s))
  expect(code).toBe(0)
  return JSON.parse(lines.join('\n'))
}

/** A collab token minted the way editors get one: POST /api/v0/assets/{id}/collab-token. */
async function mint(
  w: World,
  who: 'owner' | 'admin',
  access: 'edit' | 'view' = 'edit',
): Promise<{ token: string; org: string; doc: string }> {
  const r = await call(h, 'POST', `/api/v0/assets/${w.doc.id}/collab-token`, { key: w.keys[who], body: { access } })
  expect(r.status).toBe(200)
  return { token: r.body.token, org: r.body.org, doc: r.body.doc_id }
}

const connect = (t: { token: string; org: string; doc: string }): Promise<RawClient> =>
  rawClient(`${h.wsUrl}/${t.org}/${t.doc}?yauth=${t.token}`)

const restGet = (t: { token: string; org: string; doc: string }, bearer = false) =>
  fetch(bearer ? `${h.httpUrl}/ydoc/v1/${t.org}/${t.doc}` : `${h.httpUrl}/ydoc/v1/${t.org}/${t.doc}?yauth=${t.token}`, {
    headers: bearer ? { authorization: `Bearer ${t.token}` } : {},
  })

/** Runs `action` (the change) and waits for the socket's close: code, and ms from the start of the change. */
async function closeAfter(
  c: RawClient,
  action: () => Promise<unknown>,
): Promise<{ code: number; reason: string; ms: number }> {
  const t0 = performance.now()
  let t1 = t0
  const closedAt = c.closed.then((x) => ({ ...x, at: performance.now() }))
  await action()
  t1 = performance.now()
  const closed = await Promise.race([closedAt, new Promise<null>((r) => setTimeout(() => r(null), 5000))])
  if (!closed) throw new Error('socket still open 5 s after the change')
  console.log(
    `  change took ${(t1 - t0).toFixed(1)} ms; socket closed ${(closed.at - t0).toFixed(1)} ms after the change started`,
  )
  return { code: closed.code, reason: closed.reason, ms: closed.at - t0 }
}

const textUpdate = (s: string) => {
  const d = new Y.Doc()
  d.getText('t').insert(0, s)
  return Y.encodeStateAsUpdate(d)
}

describe('grant and membership changes reach live sockets', () => {
  it('closes the socket with 4401 within a second when the grant is removed, and refuses the token afterwards', async () => {
    const w = await makeWorld(h, 'rev-grant')
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'edit')
    const t = await mint(w, 'owner')
    const c = await connect(t)
    const closed = await closeAfter(c, () =>
      admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'none'),
    )
    console.log(`revocation-to-close (grant removed): ${closed.ms.toFixed(1)} ms`)
    expect(closed.code).toBe(4401)
    expect(closed.ms).toBeLessThan(1000)
    // the stock provider reconnects with the same token: refused before the upgrade now
    expect(await upgradeStatus(`${h.wsUrl}/${t.org}/${t.doc}?yauth=${t.token}`)).toBe(401)
    expect((await restGet(t)).status).toBe(401)
    const metrics = await (await fetch(`${h.httpUrl}/metrics`)).text()
    expect(metrics).toMatch(/tandem_auth_refusals_total\{where="live",reason="revoked"\} [1-9]/)
    expect(metrics).toMatch(/tandem_auth_refusals_total\{where="upgrade",reason="revoked"\} [1-9]/)
    expect(metrics).toMatch(/tandem_token_revocations [1-9]/)
  })

  it('downgrades the socket to read-only when edit becomes view: its updates are refused, the socket stays', async () => {
    const w = await makeWorld(h, 'rev-view')
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'edit')
    const t = await mint(w, 'owner')
    const writer = await connect(t)
    const other = await rawClient(
      `${h.wsUrl}/${t.org}/${t.doc}?yauth=${await h.token(t.org, t.doc, { sub: 'watcher@example.com' })}`,
    )
    writer.send(encodeUpdate(textUpdate('before')))
    await eventually(async () => expect(await docText(t)).toBe('before'))
    const before = writer.messages.length
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'view')
    // a permission-denied auth message [2, 0, ...] tells the client it is read-only now
    await eventually(() => expect(writer.messages.slice(before).some((m) => m[0] === 2 && m[1] === 0)).toBe(true), 1000)
    writer.send(encodeUpdate(textUpdate('after')))
    await new Promise((r) => setTimeout(r, 300))
    expect(await docText(t)).toBe('before')
    expect(writer.ws.readyState).toBe(WebSocket.OPEN)
    // REST writes with the old rw token are refused; reads still work
    const patch = await fetch(`${h.httpUrl}/ydoc/v1/${t.org}/${t.doc}?yauth=${t.token}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/octet-stream' },
      body: textUpdate('rest'),
    })
    expect(patch.status).toBe(403)
    expect((await restGet(t)).status).toBe(200)
    writer.ws.close()
    other.ws.close()
  })

  it('reaches sockets for a change written straight through the control store (any path): a lowered workspace default', async () => {
    const w = await makeWorld(h, 'rev-default')
    const { store } = h.server.deps.control
    await store.batch(assetOps({ ...w.doc, defaultAccess: 'edit' }))
    const t = await mint(w, 'admin') // the admin has no grant: the workspace default decides
    const c = await connect(t)
    const closed = await closeAfter(c, () => store.batch(assetOps({ ...w.doc, defaultAccess: 'none' })))
    expect(closed.code).toBe(4401)
    expect(closed.ms).toBeLessThan(1000)
    expect(await upgradeStatus(`${h.wsUrl}/${t.org}/${t.doc}?yauth=${t.token}`)).toBe(401)
  })

  it('closes the socket with 4401 when the user is removed from the workspace', async () => {
    const w = await makeWorld(h, 'rev-member')
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.admin, '--access', 'edit')
    const t = await mint(w, 'admin')
    const c = await connect(t)
    const closed = await closeAfter(c, () =>
      admin('members', 'set', '--workspace', w.workspaceId, '--user', w.users.admin, '--role', 'none'),
    )
    console.log(`revocation-to-close (membership removed): ${closed.ms.toFixed(1)} ms`)
    expect(closed.code).toBe(4401)
    expect(closed.ms).toBeLessThan(1000)
  })
})

describe('revocation on every path', () => {
  it('stops the stock provider with 4401 (no retry loop) when the grant is removed', async () => {
    const w = await makeWorld(h, 'rev-provider')
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'edit')
    const t = await mint(w, 'owner')
    const p = h.provider(t.org, t.doc, t.token)
    await synced(p)
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      p.on('closed', (e: { code: number; reason: string }) => resolve(e)),
    )
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'none')
    expect((await closed).code).toBe(4401)
    expect(p.shouldConnect).toBe(false)
  })

  it('refuses an in-band refresh with a revoked token and keeps the current one', async () => {
    const c = await rawClient(
      `${h.wsUrl}/acme/rev-refresh?yauth=${await h.token('acme', 'rev-refresh', { sub: 'fay@example.com' })}`,
    )
    const old = await h.token('acme', 'rev-refresh', { sub: 'fay@example.com' })
    const [, body] = old.split('.')
    const jti = JSON.parse(Buffer.from(body!, 'base64url').toString()).jti as string
    await admin('tokens', 'revoke', '--sub', 'fay@example.com', '--jti', jti)
    const before = c.messages.length
    c.send(encodeAuthRefresh(old))
    await eventually(() => expect(c.messages.slice(before).some((m) => m[0] === 2 && m[1] === 0)).toBe(true))
    expect(c.ws.readyState).toBe(WebSocket.OPEN)
    c.ws.close()
  })

  it('keeps the deny-list across a restart, and derives it from changes made while no server ran', async () => {
    const w = await makeWorld(h, 'rev-restart')
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'edit')
    const t = await mint(w, 'owner')
    await h.server.close()
    // no server on the data dir: the admin command opens the LevelDB itself
    await admin('grants', 'set', '--asset', w.doc.id, '--user', w.users.owner, '--access', 'none')
    await h.restart()
    expect(await upgradeStatus(`${h.wsUrl}/${t.org}/${t.doc}?yauth=${t.token}`)).toBe(401)
    expect((await restGet(t)).status).toBe(401)
  })
})

describe('tandem admin tokens revoke', () => {
  it('closes open sockets of the user on that document and refuses the tokens on upgrade and REST', async () => {
    const t = { org: 'acme', doc: 'rev-cli' }
    const mine = { ...t, token: await h.token(t.org, t.doc, { sub: 'rita@example.com' }) }
    const otherDoc = {
      org: 'acme',
      doc: 'rev-cli-2',
      token: await h.token('acme', 'rev-cli-2', { sub: 'rita@example.com' }),
    }
    const otherUser = { ...t, token: await h.token(t.org, t.doc, { sub: 'sam@example.com' }) }
    const c = await connect(mine)
    const c2 = await connect(otherDoc)
    const c3 = await connect(otherUser)
    // the real command line, a separate process going through the server's admin endpoint
    const closed = await closeAfter(c, () =>
      run(
        process.execPath,
        ['bin/tandem.js', 'admin', 'tokens', 'revoke', '--sub', 'rita@example.com', '--doc', 'rev-cli'],
        { env: { ...process.env, TANDEM_DATA_DIR: h.dataDir } },
      ),
    )
    console.log(`revocation-to-close (tandem admin tokens revoke, process start included): ${closed.ms.toFixed(1)} ms`)
    expect(closed.code).toBe(4401)
    expect(await upgradeStatus(`${h.wsUrl}/acme/rev-cli?yauth=${mine.token}`)).toBe(401)
    expect((await restGet(mine)).status).toBe(401)
    expect((await restGet(mine, true)).status).toBe(401)
    // other documents of the user and other users stay
    expect(c2.ws.readyState).toBe(WebSocket.OPEN)
    expect(c3.ws.readyState).toBe(WebSocket.OPEN)
    expect((await restGet(otherDoc)).status).toBe(200)
    // a token minted after the revocation works
    await new Promise((r) => setTimeout(r, 1100)) // iat has second resolution
    const fresh = { ...t, token: await h.token(t.org, t.doc, { sub: 'rita@example.com' }) }
    expect(await upgradeStatus(`${h.wsUrl}/acme/rev-cli?yauth=${fresh.token}`)).toBe(101)
    const listed = (await admin('tokens', 'list')) as { sub: string; doc?: string }[]
    expect(listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ sub: 'rita@example.com', doc: 'rev-cli' })]),
    )
    c2.ws.close()
    c3.ws.close()
  })

  it('tokens unrevoke lifts a mistaken revocation of exactly that scope', async () => {
    const tok = await h.token('acme', 'rev-lift', { sub: 'liv@example.com' })
    await admin(
      'tokens',
      'revoke',
      '--sub',
      'liv@example.com',
      '--doc',
      'rev-lift',
      '--before',
      String(Math.floor(Date.now() / 1000) + 86_400),
    )
    expect(await upgradeStatus(`${h.wsUrl}/acme/rev-lift?yauth=${tok}`)).toBe(401)
    await admin('tokens', 'unrevoke', '--sub', 'liv@example.com', '--doc', 'rev-lift')
    await eventually(async () => expect(await upgradeStatus(`${h.wsUrl}/acme/rev-lift?yauth=${tok}`)).toBe(101), 2000)
    expect(
      await runAdmin(['tokens', 'unrevoke', '--sub', 'liv@example.com', '--doc', 'rev-lift'], h.config, () => {}),
    ).not.toBe(0)
  })

  it('--before only refuses tokens issued before that time', async () => {
    const old = await h.token('acme', 'rev-before', { sub: 'bo@example.com' })
    await admin(
      'tokens',
      'revoke',
      '--sub',
      'bo@example.com',
      '--before',
      new Date(Date.now() - 3_600_000).toISOString(),
    )
    expect(await upgradeStatus(`${h.wsUrl}/acme/rev-before?yauth=${old}`)).toBe(101)
    await admin('tokens', 'revoke', '--sub', 'bo@example.com', '--before', String(Math.floor(Date.now() / 1000) + 5))
    expect(await upgradeStatus(`${h.wsUrl}/acme/rev-before?yauth=${old}`)).toBe(401)
  })

  it('picks up deny-list records written by another process (straight into the store) on its periodic refresh', async () => {
    const tok = await h.token('acme', 'rev-remote', { sub: 'remo@example.com' })
    const c = await rawClient(`${h.wsUrl}/acme/rev-remote?yauth=${tok}`)
    // another process shares the control plane: it writes the record without this process's hooks
    const control = h.server.deps.control.store.inner
    const closed = await closeAfter(c, () =>
      control.batch([
        {
          type: 'put',
          key: 'revoke/remo%40example.com/all/deny',
          value: {
            sub: 'remo@example.com',
            effect: 'deny',
            beforeMs: Date.now() + 1000,
            createdAtMs: Date.now(),
            reason: 'test',
          },
        },
        { type: 'put', key: 'revokemeta/version', value: { changedAtMs: Date.now(), nonce: 'remote' } },
      ]),
    )
    expect(closed.code).toBe(4401)
    expect(closed.ms).toBeLessThan(2000)
  })
})

async function docText(t: { token: string; org: string; doc: string }): Promise<string> {
  const r = await fetch(
    `${h.httpUrl}/ydoc/v1/${t.org}/${t.doc}?yauth=${await h.token(t.org, t.doc, { sub: 'reader@example.com', acc: 'r' })}`,
    {
      headers: { accept: 'application/octet-stream' },
    },
  )
  const d = new Y.Doc()
  Y.applyUpdate(d, new Uint8Array(await r.arrayBuffer()))
  return d.getText('t').toString()
}
