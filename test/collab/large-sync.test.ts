// A large sync answer goes out in fragments paced by drain (uWS otherwise keeps a socket's buffer
// at the size of the largest message it ever queued). Clients must still get the whole document,
// everything edited while it was downloading, and the room's awareness.
import { get } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { decodeMessage } from '@tandem/protocol/messages'
import { hocusClients } from '../helpers/hocuspocus.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem({}, { api: false })
})
afterAll(async () => h.close())

describe('large documents sync in paced fragments', () => {
  it('joiners get a 2 MB document whole plus the edits made while it downloads, and awareness', async () => {
    const t = await h.token('acme', 'large')
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'large', t, writer)
    await synced(pw)
    pw.awareness.setLocalStateField('user', { name: 'writer' })
    for (let i = 0; i < 64; i++) writer.getText('t').insert(0, String.fromCharCode(97 + (i % 26)).repeat(32 * 1024))
    const room = h.server.registry.loaded('acme/large/main')!
    await eventually(async () =>
      expect(await room.withDoc((d) => d.getText('t').length)).toBe(writer.getText('t').length),
    )

    // Several joiners at once, while the writer keeps typing.
    const joiners = Array.from({ length: 4 }, () => new Y.Doc())
    const providers = joiners.map((d) => h.provider('acme', 'large', t, d))
    let typed = 0
    const typing = setInterval(() => writer.getMap('m').set(`k${typed++}`, typed), 2)
    await Promise.all(providers.map((p) => synced(p)))
    await new Promise((r) => setTimeout(r, 100))
    clearInterval(typing)
    writer.getMap('m').set('last', true)

    for (const [i, d] of joiners.entries()) {
      await eventually(() => {
        expect(d.getText('t').length).toBe(writer.getText('t').length)
        expect(d.getMap('m').get('last')).toBe(true)
        expect(d.getMap('m').size).toBe(writer.getMap('m').size)
      })
      expect(Y.encodeStateVector(d)).toEqual(Y.encodeStateVector(writer))
      const aw = providers[i]!.awareness as Awareness
      await eventually(() => expect([...aw.getStates().values()].some((s) => s.user?.name === 'writer')).toBe(true))
    }
    expect(typed).toBeGreaterThan(5)
  })

  it("a Hocuspocus socket downloading a large document keeps getting its other document's edits, never inside the download", async () => {
    // Document "big": 6 MB, so its answer goes out in fragments. Document "busy": edited every 2 ms.
    const big = new Y.Doc()
    const pb = h.provider('acme', 'mux-big', await h.token('acme', 'mux-big'), big)
    await synced(pb)
    for (let i = 0; i < 192; i++) big.getText('t').insert(0, String.fromCharCode(97 + (i % 26)).repeat(32 * 1024))
    const room = h.server.registry.loaded('acme/mux-big/main')!
    await eventually(async () => expect(await room.withDoc((d) => d.getText('t').length)).toBe(big.getText('t').length))
    const busy = new Y.Doc()
    const pBusy = h.provider('acme', 'mux-busy', await h.token('acme', 'mux-busy'), busy)
    await synced(pBusy)

    const c = hocusClients()
    try {
      const socket = c.socket(h.wsUrl)
      const closes: string[] = []
      socket.on('close', ({ event }: { event: { code: number; reason: string } }) =>
        closes.push(`${event.code} ${event.reason}`),
      )
      const errors: string[] = []
      ;(socket as unknown as { webSocket: { on(e: 'error', f: (e: Error) => void): void } }).webSocket.on(
        'error',
        (e: Error) => errors.push(e.message),
      )
      const seen = new Y.Doc()
      const pSeen = c.provider(socket, 'acme/mux-busy', await h.token('acme', 'mux-busy'), seen)
      await eventually(() => expect(pSeen.synced).toBe(true))
      let typed = 0
      const typing = setInterval(() => busy.getMap('m').set(`k${typed++}`, typed), 2)
      try {
        // three downloads of the big document on the socket that follows the busy one
        for (let k = 0; k < 3; k++) {
          const copy = new Y.Doc()
          // a reader that stops now and then: the download spans many turns of the server's loop
          const tcp = (socket as unknown as { webSocket: { _socket: import('node:net').Socket } }).webSocket._socket
          const p = c.provider(socket, 'acme/mux-big', await h.token('acme', 'mux-big'), copy)
          await new Promise((r) => setTimeout(r, 30))
          for (let j = 0; j < 40 && copy.getText('t').length < big.getText('t').length; j++) {
            tcp.pause()
            await new Promise((r) => setTimeout(r, 15))
            tcp.resume()
            await new Promise((r) => setTimeout(r, 5))
          }
          await eventually(() => expect(copy.getText('t').length).toBe(big.getText('t').length), 20_000)
          p.destroy()
        }
      } finally {
        clearInterval(typing)
      }
      busy.getMap('m').set('last', true)
      await eventually(() => expect(seen.getMap('m').toJSON()).toEqual(busy.getMap('m').toJSON()))
      expect(errors).toEqual([])
      expect(closes).toEqual([])
      expect(typed).toBeGreaterThan(5)
    } finally {
      c.destroy()
    }
  })

  it('a reader that pauses mid-download still gets every edit made meanwhile, after the document', async () => {
    const t = await h.token('acme', 'paused')
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'paused', t, writer)
    await synced(pw)
    for (let i = 0; i < 256; i++) writer.getText('t').insert(0, String.fromCharCode(97 + (i % 26)).repeat(32 * 1024))
    const room = h.server.registry.loaded('acme/paused/main')!
    await eventually(async () =>
      expect(await room.withDoc((d) => d.getText('t').length)).toBe(writer.getText('t').length),
    )

    const raw = await rawClient(`${h.wsUrl}/acme/paused?yauth=${t}`)
    const socket = (raw.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    raw.send([0, 0, 1, 0]) // sync step 1 with an empty state vector: send me everything
    socket.pause()
    await new Promise((r) => setTimeout(r, 300))
    for (let i = 0; i < 20; i++) writer.getMap('m').set(`while-paused-${i}`, i)
    await new Promise((r) => setTimeout(r, 300))
    socket.resume()

    const got = new Y.Doc()
    let applied = 0
    await eventually(() => {
      for (; applied < raw.messages.length; applied++) {
        const m = raw.messages[applied]!
        if (m[0] === 0 && m[1] !== 0) Y.applyUpdate(got, (decodeMessage(m) as { update: Uint8Array }).update)
      }
      expect(got.getMap('m').size).toBe(20)
      expect(got.getText('t').length).toBe(writer.getText('t').length)
    }, 40_000)
    expect(Y.encodeStateVector(got)).toEqual(Y.encodeStateVector(writer))
    raw.ws.close()
  })

  it('after a restart a logged document goes out part by part, unmerged, and providers are whole when synced', async () => {
    const t = await h.token('acme', 'logged')
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'logged', t, writer)
    await synced(pw)
    // Twelve ~700 KB updates: logged apart, and loaded apart after the restart.
    for (let i = 0; i < 12; i++) {
      writer.getText('t').insert(writer.getText('t').length, String.fromCharCode(97 + i).repeat(700 * 1024))
      writer.getMap('m').set(`k${i}`, i)
    }
    const room = h.server.registry.loaded('acme/logged/main')!
    await eventually(() => expect(room.contains(Y.encodeStateAsUpdate(writer))).toBe(true), 30_000)
    await room.flushed()
    await h.restart()

    // A raw reader asking for everything gets several updates, then the last part as step 2.
    const raw = await rawClient(`${h.wsUrl}/acme/logged?yauth=${t}`)
    raw.send([0, 0, 1, 0])
    const got = new Y.Doc()
    const kinds: number[] = []
    await eventually(() => {
      for (let i = kinds.length; i < raw.messages.length; i++) {
        const m = raw.messages[i]!
        if (m[0] !== 0 || m[1] === 0) {
          kinds.push(-1)
          continue
        }
        kinds.push(m[1]!)
        Y.applyUpdate(got, (decodeMessage(m) as { update: Uint8Array }).update)
      }
      expect(kinds).toContain(1)
    }, 30_000)
    const sync = kinds.filter((k) => k >= 0)
    expect(sync.length).toBeGreaterThan(2)
    expect(sync.indexOf(1)).toBe(sync.length - 1) // the step 2 comes last
    expect(Y.encodeStateVector(got)).toEqual(Y.encodeStateVector(writer))
    expect(got.getText('t').toString()).toBe(writer.getText('t').toString())
    raw.ws.close()

    // Over REST the same document comes whole, streamed as the reader takes it, even a reader that pauses.
    const body = await new Promise<Buffer>((resolve, reject) => {
      const req = get(
        `${h.httpUrl}/ydoc/v1/acme/logged?yauth=${t}`,
        { headers: { accept: 'application/octet-stream' } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve(Buffer.concat(chunks)))
          res.pause()
          setTimeout(() => res.resume(), 300)
        },
      )
      req.on('error', reject)
    })
    const viaRest = new Y.Doc()
    Y.applyUpdate(viaRest, body)
    expect(viaRest.getText('t').toString()).toBe(writer.getText('t').toString())
    // As JSON too (base64, streamed the same way past 1 MB), to a reader that pauses.
    const json = await new Promise<{ type: string; body: string }>((resolve, reject) => {
      const req = get(`${h.httpUrl}/ydoc/v1/acme/logged?yauth=${t}`, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString() }),
        )
        res.pause()
        setTimeout(() => res.resume(), 300)
      })
      req.on('error', reject)
    })
    expect(json.type).toBe('application/json')
    const viaJson = new Y.Doc()
    Y.applyUpdate(viaJson, Buffer.from((JSON.parse(json.body) as { doc: string }).doc, 'base64'))
    expect(viaJson.getText('t').toString()).toBe(writer.getText('t').toString())

    // A y-websocket provider and a Hocuspocus provider hold the whole document when they count as synced.
    const yd = new Y.Doc()
    const yp = h.provider('acme', 'logged', t, yd)
    const ywsLength = new Promise<number>((resolve) => yp.once('sync', () => resolve(yd.getText('t').length)))
    const c = hocusClients()
    try {
      const hd = new Y.Doc()
      const hp = c.provider(c.socket(h.wsUrl), 'acme/logged', t, hd)
      const hocusLength = new Promise<number>((resolve) => hp.on('synced', () => resolve(hd.getText('t').length)))
      expect(await ywsLength).toBe(writer.getText('t').length)
      expect(await hocusLength).toBe(writer.getText('t').length)
      expect(hd.getMap('m').size).toBe(12)
    } finally {
      c.destroy()
    }
  }, 60_000)
})
