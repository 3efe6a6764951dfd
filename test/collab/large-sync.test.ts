// A large sync answer goes out in fragments paced by drain (uWS otherwise keeps a socket's buffer
// at the size of the largest message it ever queued). Clients must still get the whole document,
// everything edited while it was downloading, and the room's awareness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { decodeMessage } from '../../src/protocol/messages.js'
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
    await eventually(async () => expect(await room.withDoc((d) => d.getText('t').length)).toBe(writer.getText('t').length))

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

  it('a reader that pauses mid-download still gets every edit made meanwhile, after the document', async () => {
    const t = await h.token('acme', 'paused')
    const writer = new Y.Doc()
    const pw = h.provider('acme', 'paused', t, writer)
    await synced(pw)
    for (let i = 0; i < 256; i++) writer.getText('t').insert(0, String.fromCharCode(97 + (i % 26)).repeat(32 * 1024))
    const room = h.server.registry.loaded('acme/paused/main')!
    await eventually(async () => expect(await room.withDoc((d) => d.getText('t').length)).toBe(writer.getText('t').length))

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
})
