import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { CLOSE } from '@tandem/protocol/close-codes'
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
    // on ws the queue must pass 4x the bound: longer under load
    await eventually(() => expect(room.peers.size).toBe(2), 30_000)
    ;(slow.ws as unknown as { _socket: { resume(): void } })._socket.resume()
    expect((await slow.closed).code).toBe(1013)
    await eventually(() => expect(reader.getText('t').length).toBe(writer.getText('t').length))
  }, 90_000)

  it('a socket the server closes leaves its room at once, before its stalled reader reads the close frame', async () => {
    const t = await h.token('acme', 'stalled')
    const slow = await rawClient(`${h.wsUrl}/acme/stalled?yauth=${t}`)
    const raw = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    raw.pause()
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'stalled', t, writer)
    await synced(pw)
    const room = h.server.registry.loaded('acme/stalled/main')!
    const [stalled] = room.peers
    // Fill the kernel's buffers until the server queues for this socket, under the limit.
    for (let i = 0; i < 4000 && stalled!.socket.bufferedAmount() < 32 * 1024; i++) {
      writer.getText('t').insert(0, 'x'.repeat(16 * 1024))
      await new Promise((r) => setTimeout(r, 2))
    }
    expect(stalled!.socket.bufferedAmount()).toBeGreaterThanOrEqual(32 * 1024)
    expect(room.peers.size).toBe(2)
    // Closed as the listener's sweep closes a slow reader (no room in the call): the close frame
    // waits behind what the reader has not read, and the room lets the socket go now, not when
    // the reader answers (on `ws`, 30 s later for a reader this slow).
    stalled!.socket.close(CLOSE.tryAgainLater, 'backpressure limit reached')
    expect(room.peers.has(stalled!)).toBe(false)
    expect(room.peers.size).toBe(1)
    raw.resume()
    expect((await slow.closed).code).toBe(1013)
  }, 90_000)
})
