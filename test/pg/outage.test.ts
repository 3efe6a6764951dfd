// PostgreSQL stopped for a few seconds under live y-websocket editors and REST PATCH callers,
// then started again. While it is down nothing is acknowledged (no broadcast, PATCH answers 503
// with Retry-After, /readyz 503, the failure metric counts, an unloaded document answers 503); once it is back every
// held update is written: a fresh process on the same database holds exactly what the editor typed.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { mintToken } from '../../src/auth/capability.js'
import type { KeyRing } from '../../src/auth/keys/ring.js'
import { startPostgres, type PgServer } from '../helpers/postgres.js'
import { eventually, synced } from '../helpers/tandem.js'
import { sharedSigningKeys, spawnTandem, type TandemProcess } from '../helpers/tandem-process.js'

let pgs: PgServer
let dir: string
const cleanups: (() => Promise<void> | void)[] = []
beforeAll(async () => {
  pgs = await startPostgres()
  dir = await mkdtemp(join(tmpdir(), 'tandem-outage-'))
})
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
  await pgs?.close()
  await rm(dir, { recursive: true, force: true })
})

const PASSWORD = 'outage-pw-55127'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const stateVector = (d: Y.Doc) => Object.fromEntries(Y.decodeStateVector(Y.encodeStateVector(d)))

async function readyz(p: TandemProcess): Promise<number> {
  return (await fetch(`${p.httpUrl}/readyz`)).status
}

async function failuresCounted(p: TandemProcess): Promise<number> {
  const text = await (await fetch(`${p.httpUrl}/metrics`)).text()
  return [...text.matchAll(/^tandem_storage_write_failures_total\{[^}]*\} (\d+)/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  )
}

/** PATCHes distinct map entries one after another; a 503 is retried with the same update until 200. */
function patchCaller(p: TandemProcess, keys: KeyRing, name: string, stop: { now: boolean }) {
  const acked: string[] = []
  const statuses = new Map<number, number>()
  let retryAfterMissing = 0
  const done = (async () => {
    const { token } = await mintToken(keys, { org: 'acme', doc: 'outage', sub: `${name}@x`, acc: 'rw', ttlSec: 600 })
    for (let i = 0; !stop.now; i++) {
      const d = new Y.Doc()
      d.getMap('rest').set(`${name}-${i}`, i)
      const body = Y.encodeStateAsUpdate(d)
      for (;;) {
        const res = await fetch(`${p.httpUrl}/ydoc/v1/acme/outage?yauth=${token}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/octet-stream' },
          body,
        })
        await res.arrayBuffer()
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 200) break
        if (res.status !== 503) throw new Error(`PATCH answered ${res.status}`)
        if (!res.headers.get('retry-after')) retryAfterMissing++
        await sleep(200)
      }
      acked.push(`${name}-${i}`)
      await sleep(40)
    }
  })()
  return { acked, statuses, done, retryAfterMissing: () => retryAfterMissing }
}

describe('PostgreSQL lost while running', () => {
  it('holds every update through a few seconds of outage, acknowledges none of them meanwhile, and loses none', async () => {
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${pgs.port}/postgres`
    const { file, keys } = await sharedSigningKeys(dir)
    const env = { TANDEM_POSTGRES_URL: url, TANDEM_SIGNING_KEYS: file, TANDEM_LOG_LEVEL: 'info' }
    const server = await spawnTandem(['--data-dir', join(dir, 'first')], env)
    cleanups.push(() => server.stop('SIGKILL'))
    const { token } = await mintToken(keys, { org: 'acme', doc: 'outage', sub: 'ann@x', acc: 'rw', ttlSec: 600 })
    const open = (doc: Y.Doc, p: TandemProcess) => {
      const provider = new WebsocketProvider(`${p.wsUrl}/acme`, 'outage', doc, {
        params: { yauth: token },
        WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
        disableBc: true,
      })
      cleanups.push(() => provider.destroy())
      return provider
    }
    const editor = new Y.Doc()
    const observer = new Y.Doc()
    await Promise.all([synced(open(editor, server)), synced(open(observer, server))])

    // the editor types steadily; two REST callers PATCH steadily
    const stop = { now: false }
    const typing = (async () => {
      for (let i = 0; !stop.now; i++) {
        editor.getText('t').insert(editor.getText('t').length, String(i % 10))
        await sleep(30)
      }
    })()
    const callers = ['rest1', 'rest2'].map((n) => patchCaller(server, keys, n, stop))
    await sleep(1500)
    expect(await readyz(server)).toBe(200)

    await pgs.stop()
    try {
      await eventually(async () => expect(await readyz(server)).toBe(503), 15_000)
      // From the first failed write on, nothing is written, so nothing reaches the observer.
      const seen = Y.encodeStateVector(observer)
      const typedBefore = editor.getText('t').length
      await sleep(3000)
      expect(editor.getText('t').length).toBeGreaterThan(typedBefore + 20)
      expect(Y.encodeStateVector(observer)).toEqual(seen)
      expect(await failuresCounted(server)).toBeGreaterThan(0)
      // a document not loaded yet cannot be read meanwhile: 503 with Retry-After, not 500
      const other = (await mintToken(keys, { org: 'acme', doc: 'not-loaded', sub: 'ann@x', acc: 'r', ttlSec: 600 }))
        .token
      const cold = await fetch(`${server.httpUrl}/ydoc/v1/acme/not-loaded?yauth=${other}`)
      expect(cold.status).toBe(503)
      expect(cold.headers.get('retry-after')).toBe('1')
    } finally {
      await pgs.start()
    }
    await eventually(async () => expect(await readyz(server)).toBe(200), 20_000)
    await sleep(1000)
    stop.now = true
    await typing
    await Promise.all(callers.map((c) => c.done))

    for (const c of callers) {
      expect(c.statuses.get(503) ?? 0).toBeGreaterThan(0) // the outage was seen as 503, never 500
      expect([...c.statuses.keys()].sort()).toEqual([200, 503])
      expect(c.retryAfterMissing()).toBe(0)
    }
    // everything held is written and broadcast once PostgreSQL is back
    await eventually(() => expect(stateVector(observer)).toEqual(stateVector(editor)), 20_000)

    await server.stop()
    expect(server.output()).toMatch(/update log write failed/)
    expect(server.output()).not.toContain(PASSWORD)

    // A fresh process with its own data dir, loading from PostgreSQL only.
    const fresh = await spawnTandem(['--data-dir', join(dir, 'second')], env)
    cleanups.push(() => fresh.stop('SIGKILL'))
    const res = await fetch(`${fresh.httpUrl}/ydoc/v1/acme/outage?yauth=${token}`, {
      headers: { accept: 'application/octet-stream' },
    })
    expect(res.status).toBe(200)
    const stored = new Y.Doc()
    Y.applyUpdate(stored, new Uint8Array(await res.arrayBuffer()))
    expect(stateVector(stored)).toEqual(stateVector(editor))
    expect(stored.getText('t').toString()).toBe(editor.getText('t').toString())
    const rest = stored.getMap('rest')
    for (const c of callers) for (const key of c.acked) expect(rest.has(key), key).toBe(true)
    await fresh.stop()
  }, 120_000)
})
