// A document's first visitor: the socket is upgraded at once (an upgrade after an await meets the
// uWS cork() bug) and the room loads after the open. PostgreSQL storage, frozen (SIGSTOP) to hold the
// load, or stopped: the frames a provider sends on open wait and are processed in order; a storage
// that is down closes the socket with 1013 and a reason, leaving no room registered or held; a room
// that fills while it loads closes the extra socket with 1013; a socket gone before the load ends
// gives its hold back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as Y from 'yjs'
import { encodeAwareness, encodeSyncStep1, encodeUpdate } from '@tandem/protocol/messages'
import { docIdOf } from '../../src/storage/doc-store.js'
import { testPostgres } from '../helpers/backends.js'
import type { PgServer } from '../helpers/postgres.js'
import { rawClient, type RawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
let pg: PgServer
beforeAll(async () => {
  pg = await testPostgres()
  h = await startTandem(
    {
      postgresUrl: pg.url,
      postgresSchema: 'tandem_first_join',
      maxConnectionsPerRoom: 2,
      roomUnloadDelayMs: 1_000,
      maxMessageBytes: 64 * 1024,
    },
    { api: false },
  )
})
afterAll(async () => h?.close())

const connect = async (doc: string): Promise<RawClient> =>
  rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc)}`)
const gauge = async (name: 'connections' | 'rooms') => (await h.server.deps.metrics[name].get()).values[0]?.value ?? 0
const bytesIn = async () => (await h.server.deps.metrics.bytesIn.get()).values[0]?.value ?? 0
const closesWith = async (code: number) =>
  (await h.server.deps.metrics.closes.get()).values.find((v) => v.labels.code === String(code))?.value ?? 0

/** Runs `opening` while PostgreSQL is frozen, so every room it touches is still loading meanwhile. */
async function whileStorageFrozen<T>(opening: () => Promise<T>): Promise<T> {
  await pg.freeze()
  try {
    return await opening()
  } finally {
    await pg.thaw()
  }
}

describe('a room first joined through its socket', () => {
  it('holds the frames sent before the room loaded and processes them in order once it has', async () => {
    const typed = new Y.Doc()
    typed.getText('t').insert(0, 'typed before the load')
    const awareness = new awarenessProtocol.Awareness(new Y.Doc())
    awareness.setLocalState({ user: 'ann' })
    const frames = [
      encodeSyncStep1(Y.encodeStateVector(new Y.Doc())),
      encodeUpdate(Y.encodeStateAsUpdate(typed)),
      encodeAwareness(awarenessProtocol.encodeAwarenessUpdate(awareness, [awareness.clientID])),
    ]
    const c = await whileStorageFrozen(async () => {
      const before = await bytesIn()
      const c = await connect('held')
      for (const f of frames) c.send(f)
      await eventually(async () => expect(await bytesIn()).toBe(before + frames.reduce((n, f) => n + f.length, 0)))
      expect(c.messages).toEqual([]) // received, and nothing answered: the room is not there yet
      return c
    })
    // The provider joining next sees both the update and the awareness state, sent before the load.
    const reader = new Y.Doc()
    const p = h.provider('acme', 'held', await h.token('acme', 'held'), reader)
    await synced(p)
    await eventually(() => expect(reader.getText('t').toString()).toBe('typed before the load'))
    await eventually(() => expect([...p.awareness.getStates().values()]).toContainEqual({ user: 'ann' }))
    expect(c.messages.length).toBeGreaterThan(0)
    c.ws.close()
    p.destroy()
  }, 60_000)

  it('closes a socket whose room cannot be loaded (storage down) with 1013 and a reason, and leaves nothing behind', async () => {
    // the rooms of the tests before unload a second after their last socket: counted once they have
    await eventually(() => expect(h.server.registry.size).toBe(0))
    const rooms = h.server.registry.size
    const closes = await closesWith(1013)
    await pg.stop()
    let closed: { code: number; reason: string }
    try {
      const c = await connect('down')
      closed = await c.closed
    } finally {
      await pg.start()
    }
    expect(closed.code).toBe(1013)
    expect(closed.reason).toMatch(/unavailable; retry/)
    expect(h.server.registry.loaded(docIdOf('acme', 'down', 'main'))).toBeUndefined()
    expect(h.server.registry.size).toBe(rooms)
    expect(await gauge('rooms')).toBe(rooms)
    expect(await closesWith(1013)).toBe(closes + 1)
    await eventually(async () => expect(await gauge('connections')).toBe(0))
    // Once storage is back the same document loads for the next visitor.
    const p = h.provider('acme', 'down', await h.token('acme', 'down'))
    await synced(p)
    p.destroy()
  }, 90_000)

  it('closes the socket that finds the room full once it has loaded with 1013', async () => {
    const clients = await whileStorageFrozen(async () =>
      Promise.all([connect('full'), connect('full'), connect('full')]),
    )
    const closed = await Promise.race(clients.map((c) => c.closed))
    expect(closed).toEqual({ code: 1013, reason: 'room is full' })
    await eventually(() => expect(h.server.registry.loaded(docIdOf('acme', 'full', 'main'))?.peers.size).toBe(2))
    for (const c of clients) c.ws.close()
  }, 60_000)

  it('closes with 1008 a socket that sends more than it may hold before its room loaded', async () => {
    const big = new Y.Doc()
    const frames = [0, 1, 2].map((i) => {
      const before = Y.encodeStateVector(big)
      big.getText('t').insert(0, String(i).repeat(50 * 1024))
      return encodeUpdate(Y.encodeStateAsUpdate(big, before))
    })
    const closed = await whileStorageFrozen(async () => {
      const c = await connect('flooded')
      for (const f of frames) c.send(f) // 150 KiB waiting; two 64 KiB messages' worth may
      return c.closed
    })
    expect(closed).toEqual({ code: 1008, reason: 'too many messages before the document was loaded' })
  }, 60_000)

  it('gives back the hold of a socket that closed before its room loaded: the room unloads', async () => {
    await whileStorageFrozen(async () => {
      const c = await connect('gone')
      c.ws.close()
      await c.closed
    })
    // Loaded for the socket that left (seen within the 1 s idle delay), then unloaded: nothing holds it.
    const docId = docIdOf('acme', 'gone', 'main')
    let loaded = false
    const watch = setInterval(() => (loaded ||= h.server.registry.loaded(docId) !== undefined), 5)
    try {
      await eventually(() => expect(loaded).toBe(true), 20_000)
      await eventually(() => expect(h.server.registry.loaded(docId)).toBeUndefined(), 20_000)
    } finally {
      clearInterval(watch)
    }
    await eventually(async () => expect(await gauge('connections')).toBe(0))
  }, 60_000)
})
