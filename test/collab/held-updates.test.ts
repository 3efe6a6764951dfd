// Updates held for a missing dependency are served the way a Y.Doc serves its pending structs:
// a peer that joins (or rejoins) while an update waits for its gap gets it with its sync answer,
// so when the gap fills it holds everything, on both protocols and both storage modes, across a
// restart with a snapshot written meanwhile, and from a cluster node other than the one that
// holds the gap.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { decodeMessage, encodeUpdate } from '@tandem/protocol/messages'
import { MAX_HELD_STRUCTS } from '../../src/collab/room/held-updates.js'
import { BACKENDS } from '../helpers/backends.js'
import { gapPair, hasPending, orphanUpdate } from '../helpers/gap-updates.js'
import { hocusClients, type HocusClients } from '../helpers/hocuspocus.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function restDoc(h: Harness, name: string): Promise<Y.Doc> {
  const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/${name}`, {
    headers: { authorization: `Bearer ${await h.token('acme', name)}`, accept: 'application/octet-stream' },
  })
  expect(res.status).toBe(200)
  const d = new Y.Doc()
  Y.applyUpdate(d, new Uint8Array(await res.arrayBuffer()))
  return d
}

type Joiner = (h: Harness, c: HocusClients, name: string, doc: Y.Doc) => Promise<void>

const JOINERS: [string, Joiner][] = [
  [
    'y-websocket',
    async (h, _c, name, doc) => {
      await synced(h.provider('acme', name, await h.token('acme', name), doc))
    },
  ],
  [
    'hocuspocus',
    async (h, c, name, doc) => {
      const p = c.provider(c.socket(h.wsUrl), `acme/${name}`, await h.token('acme', name), doc)
      await new Promise<void>((resolve) => (p.isSynced ? resolve() : p.on('synced', () => resolve())))
    },
  ],
]

describe.each(BACKENDS)('held updates on $name', (backend) => {
  describe.each(JOINERS)('a %s joiner', (_protocol, join) => {
    it('joining while an update waits for its gap gets that update once the gap fills', async () => {
      const h = await startTandem(await backend.overrides(), { api: false })
      cleanups.push(() => h.close())
      const c = hocusClients()
      cleanups.push(() => c.destroy())
      const name = `gap-join-${backend.name}-${_protocol}`
      const first = new Y.Doc()
      await synced(h.provider('acme', name, await h.token('acme', name), first))

      const { u1, u2 } = gapPair()
      const raw = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
      cleanups.push(() => raw.ws.close())
      raw.send(encodeUpdate(u2))
      await eventually(() => expect(hasPending(first)).toBe(true)) // the room holds U2 and told its peers

      const joiner = new Y.Doc()
      await join(h, c, name, joiner)
      expect(hasPending(joiner)).toBe(true) // served as a Y.Doc serves pending structs
      const during = await restDoc(h, name)
      expect(during.getText('t').toString()).toBe('')
      expect(hasPending(during)).toBe(true)

      raw.send(encodeUpdate(u1))
      await eventually(() => expect(first.getText('t').toString()).toBe('first second'))
      await eventually(() => expect(joiner.getText('t').toString()).toBe('first second'))
      expect(hasPending(joiner)).toBe(false)
      expect((await restDoc(h, name)).getText('t').toString()).toBe('first second')
    })
  })

  it('a held update survives a restart with a snapshot written meanwhile, held, and a joiner after it gets it', async () => {
    const h = await startTandem({ ...(await backend.overrides()), compactThreshold: 2 }, { api: false })
    cleanups.push(() => h.close())
    const name = `gap-restart-${backend.name}`
    const writer = new Y.Doc()
    await synced(h.provider('acme', name, await h.token('acme', name), writer))
    writer.getText('t').insert(0, 'x')
    const { u1, u2 } = gapPair()
    const raw = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    raw.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(writer)).toBe(true))
    writer.getText('t').delete(0, 1) // a deletion makes the next compaction collect: a snapshot is written
    await eventually(async () => expect((await h.server.store.load(`acme/${name}/main`)).snapshot).toBeTruthy())
    raw.ws.close()
    await h.restart()

    const held = await restDoc(h, name)
    expect(held.getText('t').toString()).toBe('') // not applied early
    expect(hasPending(held)).toBe(true) // not lost
    const joiner = new Y.Doc()
    await synced(h.provider('acme', name, await h.token('acme', name), joiner))
    const late = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    cleanups.push(() => late.ws.close())
    late.send(encodeUpdate(u1))
    await eventually(() => expect(joiner.getText('t').toString()).toBe('first second'))
  })
})

describe('held updates and paced answers', () => {
  /** A document past the paced-answer size (64 KB): 8 MB of text, so a paused reader's answer stalls. */
  async function largeDoc(h: Harness, name: string, mb: number): Promise<Y.Doc> {
    const writer = new Y.Doc()
    await synced(h.provider('acme', name, await h.token('acme', name), writer))
    for (let i = 0; i < mb * 32; i++)
      writer.getText('big').insert(0, String.fromCharCode(97 + (i % 26)).repeat(32 * 1024))
    const room = h.server.registry.loaded(`acme/${name}/main`)!
    await eventually(() => expect(room.contains(Y.encodeStateAsUpdate(writer))).toBe(true), 30_000)
    return writer
  }

  it('a joiner whose answer goes out paced gets the held update with it', async () => {
    const h = await startTandem({}, { api: false })
    cleanups.push(() => h.close())
    const name = 'gap-paced'
    const writer = await largeDoc(h, name, 1)
    const { u1, u2 } = gapPair()
    const raw = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    cleanups.push(() => raw.ws.close())
    raw.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(writer)).toBe(true))
    const joiner = new Y.Doc()
    await synced(h.provider('acme', name, await h.token('acme', name), joiner))
    expect(joiner.getText('big').length).toBe(writer.getText('big').length)
    expect(hasPending(joiner)).toBe(true)
    raw.send(encodeUpdate(u1))
    await eventually(() => expect(joiner.getText('t').toString()).toBe('first second'))
  }, 60_000)

  it('an update held while a paced answer stalls reaches that reader with its catch-up', async () => {
    const h = await startTandem({}, { api: false })
    cleanups.push(() => h.close())
    const name = 'gap-during-pacing'
    const writer = await largeDoc(h, name, 8)
    const room = h.server.registry.loaded(`acme/${name}/main`)!
    const reader = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    cleanups.push(() => reader.ws.close())
    const socket = (reader.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    socket.pause()
    reader.send([0, 0, 1, 0]) // sync step 1, empty: the 8 MB answer goes out paced and stalls
    // forced interleaving: the reader is out of the room's topic, being paced (RoomSync.pacing)
    const pacing = () => (room as unknown as { sync: { pacing: Set<unknown> } }).sync.pacing.size
    await eventually(() => expect(pacing()).toBe(1))

    const { u1, u2 } = gapPair()
    const sender = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    cleanups.push(() => sender.ws.close())
    sender.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(writer)).toBe(true)) // held and broadcast, the reader not in the topic
    expect(pacing()).toBe(1)
    socket.resume()
    await eventually(() => expect(pacing()).toBe(0), 30_000) // the answer is out and the reader back in the topic
    sender.send(encodeUpdate(u1))

    const got = new Y.Doc()
    let applied = 0
    await eventually(() => {
      for (; applied < reader.messages.length; applied++) {
        const m = reader.messages[applied]!
        if (m[0] === 0 && m[1] !== 0) Y.applyUpdate(got, (decodeMessage(m) as { update: Uint8Array }).update)
      }
      expect(got.getText('t').toString()).toBe('first second')
    }, 30_000)
    expect(got.getText('big').length).toBe(writer.getText('big').length)
  }, 90_000)
})

describe('a gap that never fills', () => {
  it('is bounded: past 10,000 held structs a write that would be held is refused (409), while ready writes and compaction go on', async () => {
    const h = await startTandem({ compactThreshold: 50 }, { api: false })
    cleanups.push(() => h.close())
    const name = 'gap-never'
    const token = await h.token('acme', name)
    const patch = (u: Uint8Array) =>
      fetch(`${h.httpUrl}/ydoc/v1/acme/${name}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: u,
      })
    const per = 100
    for (let i = 0; i < MAX_HELD_STRUCTS / per; i += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, k) => patch(orphanUpdate(5000 + i + k, per))))
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200))
    }
    const refused = await patch(orphanUpdate(4999, 1))
    expect(refused.status).toBe(409)
    expect(((await refused.json()) as { code: string }).code).toBe('held_full')

    // ready writes go on, and so does compaction (the snapshot carries the held updates)
    const writer = new Y.Doc()
    await synced(h.provider('acme', name, token, writer))
    for (let i = 0; i < 60; i++) writer.getText('t').insert(0, 'x')
    writer.getText('t').delete(0, 10)
    await eventually(async () => expect((await h.server.store.load(`acme/${name}/main`)).snapshot).toBeTruthy())
    const read = await restDoc(h, name)
    expect(read.getText('t').toString()).toBe('x'.repeat(50))
    expect(hasPending(read)).toBe(true)
  }, 60_000)
})

describe('a read-only peer during a gap', () => {
  it('gets the held update, and re-sending it as pending on a reconnect is no write (no read-only refusal)', async () => {
    const h = await startTandem({}, { api: false })
    cleanups.push(() => h.close())
    const name = 'gap-read-only'
    const writer = new Y.Doc()
    await synced(h.provider('acme', name, await h.token('acme', name), writer))
    const { u1, u2 } = gapPair()
    const raw = await rawClient(`${h.wsUrl}/acme/${name}?yauth=${await h.token('acme', name)}`)
    cleanups.push(() => raw.ws.close())
    raw.send(encodeUpdate(u2))
    await eventually(() => expect(hasPending(writer)).toBe(true))

    const denied: string[] = []
    const warn = console.warn
    console.warn = (...a: unknown[]) => void denied.push(a.join(' ')) // y-websocket reports a refusal there
    cleanups.push(() => (console.warn = warn))
    const reader = new Y.Doc()
    const pr = h.provider('acme', name, await h.token('acme', name, { acc: 'r', sub: 'reader@example.com' }), reader)
    await synced(pr)
    expect(hasPending(reader)).toBe(true)
    pr.disconnect()
    pr.connect() // its sync step 2 now carries the pending structs
    await synced(pr)
    writer.getMap('m').set('after', 1) // broadcast after the reader's step 2 was judged
    await eventually(() => expect(reader.getMap('m').get('after')).toBe(1))
    expect(denied.join('\n')).not.toMatch(/read-only/)
    raw.send(encodeUpdate(u1))
    await eventually(() => expect(reader.getText('t').toString()).toBe('first second'))
  })
})
