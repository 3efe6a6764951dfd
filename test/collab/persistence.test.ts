import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { BACKENDS, type Backend } from '../helpers/backends.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, transportArgs, type Harness } from '../helpers/tandem.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function harness(over: Parameters<typeof startTandem>[0] = {}, dataDir?: string): Promise<Harness> {
  const h = await startTandem(over, { api: false }, dataDir)
  cleanups.push(() => h.close())
  return h
}

describe.each(BACKENDS)('restart ($name)', (backend) => {
  it('a reopened server has the identical state vector and content', async () => {
    const h = await harness({ ...(await backend.overrides()), compactThreshold: 5 })
    const t = await h.token('acme', 'restart')
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = h.provider('acme', 'restart', t, a)
    const pb = h.provider('acme', 'restart', t, b)
    await Promise.all([synced(pa), synced(pb)])
    for (let i = 0; i < 12; i++) (i % 2 ? a : b).getText('t').insert(0, String(i % 10))
    a.getMap('m').set('k', 'v')
    b.getText('t').delete(0, 2)
    await eventually(() => expect(b.getText('t').toString()).toBe(a.getText('t').toString()))
    await eventually(() => expect(b.getMap('m').get('k')).toBe('v'))
    const before = Y.encodeStateVector(a)
    const content = a.getText('t').toString()
    await h.restart()
    const c = new Y.Doc()
    await synced(h.provider('acme', 'restart', t, c))
    expect(Y.encodeStateVector(c)).toEqual(before)
    expect(c.getText('t').toString()).toBe(content)
    expect(c.getMap('m').get('k')).toBe('v')
  })

  it('a room unloads after its last client leaves and reloads the same content', async () => {
    const h = await harness({ ...(await backend.overrides()), roomUnloadDelayMs: 50 })
    const t = await h.token('acme', 'unload')
    const a = new Y.Doc()
    const pa = h.provider('acme', 'unload', t, a)
    await synced(pa)
    a.getText('t').insert(0, 'persisted')
    await eventually(() => expect(h.server.registry.loaded('acme/unload/main')?.hasUnflushed).toBe(false))
    pa.destroy()
    await eventually(() => expect(h.server.registry.loaded('acme/unload/main')).toBeUndefined())
    const b = new Y.Doc()
    await synced(h.provider('acme', 'unload', t, b))
    expect(b.getText('t').toString()).toBe('persisted')
  })

  it('concurrent joins share one load of the room', async () => {
    const h = await harness(await backend.overrides())
    const t = await h.token('acme', 'shared-load')
    const docs = Array.from({ length: 8 }, () => new Y.Doc())
    const ps = docs.map((d) => h.provider('acme', 'shared-load', t, d))
    await Promise.all(ps.map(synced))
    docs[3]!.getText('t').insert(0, 'one room')
    await eventually(() => docs.forEach((d) => expect(d.getText('t').toString()).toBe('one room')))
    expect(h.server.registry.size).toBe(1)
    expect(h.server.registry.loaded('acme/shared-load/main')!.peers.size).toBe(8)
  })

  it('graceful shutdown flushes and closes sockets with 1001', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-shutdown-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const over = await backend.overrides()
    const h = await startTandem(over, { api: false }, dir)
    const t = await h.token('acme', 'shutdown')
    const c = await rawClient(`${h.wsUrl}/acme/shutdown?yauth=${t}`)
    const d = new Y.Doc()
    d.getText('t').insert(0, 'last words')
    const { encodeUpdate } = await import('@tandem/protocol/messages')
    c.send(encodeUpdate(Y.encodeStateAsUpdate(d)))
    await eventually(async () =>
      expect(await h.server.registry.loaded('acme/shutdown/main')?.withDoc((d) => d.getText('t').toString())).toBe(
        'last words',
      ),
    )
    await h.close()
    expect((await c.closed).code).toBe(1001)
    const again = await startTandem(over, { api: false }, dir)
    cleanups.push(() => again.close())
    const e = new Y.Doc()
    await synced(again.provider('acme', 'shutdown', await again.token('acme', 'shutdown'), e))
    expect(e.getText('t').toString()).toBe('last words')
  })
})

describe('branches', () => {
  it('a branch starts as a copy of main and then lives on its own', async () => {
    const h = await harness()
    const main = new Y.Doc()
    await synced(h.provider('acme', 'branchy', await h.token('acme', 'branchy'), main))
    main.getText('t').insert(0, 'base')
    await eventually(() => expect(h.server.registry.loaded('acme/branchy/main')?.hasUnflushed).toBe(false))
    const draft = new Y.Doc()
    await synced(h.provider('acme', 'branchy', await h.token('acme', 'branchy', { branch: 'draft' }), draft))
    expect(draft.getText('t').toString()).toBe('base')
    draft.getText('t').insert(4, ' + draft')
    main.getText('t').insert(0, 'main: ')
    const check = new Y.Doc()
    await synced(h.provider('acme', 'branchy', await h.token('acme', 'branchy', { branch: 'draft' }), check))
    await eventually(() => expect(check.getText('t').toString()).toBe('base + draft'))
    await eventually(() => expect(main.getText('t').toString()).toBe('main: base'))
  })
})

describe('quiet rooms', () => {
  it('a provider alone in a room stays connected for more than 35 s', async () => {
    const h = await harness()
    const p = h.provider('acme', 'quiet', await h.token('acme', 'quiet'))
    await synced(p)
    let disconnects = 0
    p.on('status', ({ status }: { status: string }) => {
      if (status === 'disconnected') disconnects++
    })
    await new Promise((r) => setTimeout(r, 36_000))
    expect(disconnects).toBe(0)
    expect(p.wsconnected).toBe(true)
  }, 60_000)
})

describe.each(BACKENDS)('crash safety ($name)', (backend: Backend) => {
  it('kill -9 right after clients saw their updates loses none of them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tandem-crash-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const over = await backend.overrides()
    // the URL goes in through the environment, as a secret should (not argv, which ps shows)
    const env = {
      ...process.env,
      TANDEM_POSTGRES_URL: over.postgresUrl ?? '',
      TANDEM_POSTGRES_SCHEMA: over.postgresSchema ?? 'tandem',
    }
    const start = async () => {
      const child = spawn(
        process.execPath,
        [
          'bin/tandem.js',
          'serve',
          '--data-dir',
          dir,
          '--collab-port',
          '0',
          '--api-port',
          '0',
          '--log-level',
          'silent',
          ...transportArgs(),
        ],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          env,
        },
      )
      const port = await new Promise<number>((resolve, reject) => {
        let out = ''
        child.stdout!.on('data', (c: Buffer) => {
          out += c
          const m = /collab listening on http:\/\/[^:]+:(\d+)/.exec(out)
          if (m) resolve(Number(m[1]))
        })
        child.on('exit', (code) => reject(new Error(`server exited early (${code})`)))
      })
      return { child, port }
    }
    const stop = (child: ChildProcess, signal: NodeJS.Signals) =>
      new Promise<void>((r) => {
        if (child.exitCode !== null || child.signalCode !== null) return r()
        child.once('exit', () => r())
        child.kill(signal)
      })
    const { child, port } = await start()
    cleanups.push(() => stop(child, 'SIGKILL'))
    const h = { wsUrl: `ws://127.0.0.1:${port}` }
    const { mintToken } = await import('../../src/auth/capability.js')
    const { loadKeyRing } = await import('../../src/auth/keys/ring.js')
    const { loadPgKeyRing } = await import('../../src/auth/keys/postgres.js')
    const { createPgPool } = await import('../../src/pg/pool.js')
    // the server's signing keys: in the database on PostgreSQL, else in the data dir
    const keysOf = async () => {
      if (!over.postgresUrl) return loadKeyRing(dir, '')
      const pool = createPgPool({ url: over.postgresUrl, schema: over.postgresSchema ?? 'tandem', poolSize: 2 })
      try {
        return await loadPgKeyRing(pool)
      } finally {
        await pool.end()
      }
    }
    const keys = await keysOf()
    const { token } = await mintToken(keys, { org: 'acme', doc: 'crash', sub: 'ann@x', acc: 'rw', ttlSec: 600 })
    const { WebsocketProvider } = await import('y-websocket')
    const WebSocket = (await import('ws')).default
    const open = (doc: Y.Doc) =>
      new WebsocketProvider(`${h.wsUrl}/acme`, 'crash', doc, {
        params: { yauth: token },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = open(a)
    const pb = open(b)
    await Promise.all([synced(pa), synced(pb)])
    for (let i = 0; i < 50; i++) a.getArray<number>('n').push([i])
    // b has received every update from a: each was durable before it was broadcast.
    await eventually(() => expect(b.getArray('n').length).toBe(50))
    await stop(child, 'SIGKILL')
    pa.destroy()
    pb.destroy()
    const second = await start()
    cleanups.push(() => stop(second.child, 'SIGTERM'))
    const c = new Y.Doc()
    const pc = new WebsocketProvider(`ws://127.0.0.1:${second.port}/acme`, 'crash', c, {
      params: { yauth: token },
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
      disableBc: true,
    })
    await synced(pc)
    expect(c.getArray('n').toArray()).toEqual(b.getArray('n').toArray())
    pc.destroy()
  })
})
