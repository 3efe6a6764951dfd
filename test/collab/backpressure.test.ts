import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
beforeAll(async () => {
  h = await startTandem({ maxBackpressureBytes: 256 * 1024 }, { api: false })
})
afterAll(async () => h.close())

describe('slow consumers', () => {
  it('a reader that stops reading is closed with 1013 while the room carries on', async () => {
    const t = await h.token('acme', 'slow')
    const slow = await rawClient(`${h.wsUrl}/acme/slow?yauth=${t}`)
    // Stop reading: the kernel buffers fill, then the server's queue for this socket grows.
    ;(slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause()
    const writer = new Y.Doc()
    const reader = new Y.Doc()
    const pw = h.provider('acme', 'slow', t, writer)
    const pr = h.provider('acme', 'slow', t, reader)
    await Promise.all([synced(pw), synced(pr)])
    const room = h.server.registry.loaded('acme/slow/main')!
    for (let i = 0; i < 2000 && room.peers.size === 3; i++) {
      writer.getText('t').insert(0, String(i % 10).repeat(16 * 1024))
      await new Promise((r) => setTimeout(r, 5))
    }
    await eventually(() => expect(room.peers.size).toBe(2), 30_000) // on ws the queue must pass 4x the bound: longer under load
    ;(slow.ws as unknown as { _socket: { resume(): void } })._socket.resume()
    expect((await slow.closed).code).toBe(1013)
    await eventually(() => expect(reader.getText('t').length).toBe(writer.getText('t').length))
  }, 90_000)
})
