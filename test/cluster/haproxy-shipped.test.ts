// The shipped docs/cluster/haproxy.cfg (only its ports rewritten, under a hard limit of 20,000 file
// descriptors) in front of three `tandem serve` nodes with --trusted-proxies 127.0.0.1: per-address
// limits count the client HAProxy names, not HAProxy; every request for one document reaches one
// node; a killed node's documents move to the others and come back with it, a drained one's move,
// and nothing any writer wrote is lost.
import { request } from 'node:http'
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { eventually } from '../helpers/tandem.js'
import { startProcessCluster, Writers, type ProcessCluster } from './process-cluster.js'

let c: ProcessCluster
beforeAll(async () => {
  c = await startProcessCluster(
    3,
    { TANDEM_TRUSTED_PROXIES: '127.0.0.1', TANDEM_ROOM_UNLOAD_DELAY_MS: '500' },
    { lb: 'shipped' },
  )
}, 120_000)
afterAll(async () => {
  await c?.close()
})

/** The status of a WebSocket upgrade sent from `from` (a loopback address of this host). */
function upgradeStatus(url: string, path: string, from: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      localAddress: from,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    })
    req.on('upgrade', (res, socket) => {
      socket.destroy()
      resolve(res.statusCode!)
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    req.end()
  })
}

const apiStatus = (url: string, from: string) => getStatus(`${url}/api/v0/me`, from, { 'x-api-key': 'not-a-key' })
const restStatus = (url: string, path: string, from: string) =>
  getStatus(`${url}${path}`, from, { authorization: 'Bearer not-a-token' })

async function getStatus(url: string, from: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress: from, headers }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    req.end()
  })
}

/** tandem_rooms_loaded of every running node (0 for a stopped one). */
async function roomsPerNode(): Promise<number[]> {
  return Promise.all(
    c.nodes.map(async (n) => {
      if (!n) return 0
      const text = await (await fetch(`http://127.0.0.1:${n.apiPort}/metrics`)).text()
      return Number(/^tandem_rooms_loaded (\d+)$/m.exec(text)?.[1] ?? NaN)
    }),
  )
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

describe('the shipped HAProxy configuration', () => {
  it('40 bad tokens from 127.0.0.2 lock out 127.0.0.2 only; 127.0.0.3 is served, and spoofed X-Forwarded-For changes nothing', async () => {
    // One document: with affinity all 40 reach one node, whose limit is 30 failures a minute.
    const path = '/acme/lockout?yauth=not-a-token'
    const statuses: number[] = []
    for (let i = 0; i < 40; i++)
      statuses.push(await upgradeStatus(c.lb.url, path, '127.0.0.2', { 'x-forwarded-for': `10.9.9.${i}` }))
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true)
    // The locked-out address stays locked whatever it claims to be...
    expect(await upgradeStatus(c.lb.url, path, '127.0.0.2', { 'x-forwarded-for': '127.0.0.3' })).toBe(429)
    expect(await upgradeStatus(c.lb.url, path, '127.0.0.2', { forwarded: 'for=127.0.0.3' })).toBe(429)
    // ...and so it is when it talks to the nodes directly (its headers are not trusted there).
    const direct = await Promise.all(
      c.nodes.map((n) => upgradeStatus(n!.httpUrl, path, '127.0.0.2', { 'x-forwarded-for': '127.0.0.3' })),
    )
    expect(direct).toContain(429)
    // Collab REST on the same document reaches the same node (same hash key), which knows the client.
    expect(await restStatus(c.lb.url, '/ydoc/v1/acme/lockout', '127.0.0.2')).toBe(429)
    expect(await restStatus(c.lb.url, '/ydoc/v1/acme/lockout', '127.0.0.3')).toBe(401)
    // Another client of the same document, through the same HAProxy, is served.
    expect(await upgradeStatus(c.lb.url, path, '127.0.0.3')).toBe(401)
    const ws = new WebSocket(`${c.lb.wsUrl}/acme/lockout?yauth=${await c.token('lockout')}`, {
      localAddress: '127.0.0.3',
    })
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    ws.close()
  }, 60_000)

  it('bad X-API-KEYs through the api frontend lock out their client only', async () => {
    // Round robin over three nodes: 100 failures put each node past its 30 a minute.
    const statuses: number[] = []
    for (let i = 0; i < 100; i++) statuses.push(await apiStatus(c.apiLbUrl!, '127.0.0.4'))
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401])
    expect(statuses.slice(-3)).toEqual([429, 429, 429])
    expect(await apiStatus(c.apiLbUrl!, '127.0.0.5')).toBe(401)
  }, 60_000)

  it("10 documents x 6 providers: each document is loaded on exactly one node; a SIGKILLed node's documents move to the others and come back with it, a drained node's move too, and nothing is lost", async () => {
    const docs = Array.from({ length: 10 }, (_, i) => `affinity-${i}`)
    const writers = await Promise.all(docs.map((d) => Writers.start(c, d, 6, 500)))
    const providers = writers.flatMap((w) => w.providers)
    const allSynced = (ms = 60_000) => eventually(() => providers.forEach(({ p }) => expect(p.synced).toBe(true)), ms)
    try {
      await allSynced()
      // ten documents, each on one node (once the previous test's room has unloaded)
      await eventually(async () => expect(sum(await roomsPerNode())).toBe(10))
      const before = await roomsPerNode()
      expect(before.filter((n) => n > 0).length).toBeGreaterThan(1) // and spread over the nodes

      // SIGKILL the busiest node: its documents' providers reconnect through HAProxy to the others.
      const victim = before.indexOf(Math.max(...before))
      await c.stop(victim, 'SIGKILL')
      await allSynced()
      await eventually(async () => {
        const during = await roomsPerNode()
        expect(during[victim]).toBe(0)
        expect(sum(during)).toBe(10) // its documents moved, each to one survivor
      }, 60_000) // a room left behind by a health check that flapped under load unloads 10 s after its last socket

      // It comes back: HAProxy routes its documents to it again (rise 2 checks); the sockets open
      // elsewhere stay until their clients reconnect, which they do here one by one while writing.
      await c.start(victim)
      await new Promise((r) => setTimeout(r, 3_000))
      for (const { p } of providers) {
        p.disconnect()
        p.connect()
      }
      await allSynced()
      await eventually(async () => expect(await roomsPerNode()).toEqual(before), 60_000)

      // Drain (SIGTERM) another node: 1012 to its sockets, /readyz 503, its documents move.
      const drained = before.findIndex((n, i) => i !== victim && n > 0)
      await c.stop(drained, 'SIGTERM')
      await allSynced()
      await eventually(async () => {
        const during = await roomsPerNode()
        expect(sum(during)).toBe(10)
      }, 60_000)
      expect(providers.flatMap((x) => x.closes)).toContain(1012)
      await c.start(drained)
    } finally {
      for (const w of writers) w.stop()
    }
    // Every item any writer wrote is in every writer of its document and in PostgreSQL.
    for (const [i, w] of writers.entries()) {
      const all = w.all()
      expect(all.size).toBe(w.written)
      await eventually(
        () => w.docs.forEach((d) => expect(new Set(d.getArray<string>('items').toArray())).toEqual(all)),
        60_000,
      )
      await eventually(async () => {
        const stored = new Set((await c.stored(`acme/${docs[i]}/main`)).getArray<string>('items').toArray())
        expect([...all].filter((x) => !stored.has(x))).toEqual([])
      }, 30_000)
    }
    for (const w of writers) w.destroy()
  }, 300_000)
})
