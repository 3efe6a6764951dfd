// Updates held for a missing dependency are served the way a Y.Doc serves its pending structs:
// a peer that joins (or rejoins) while an update waits for its gap gets it with its sync answer,
// so when the gap fills it holds everything, on both protocols and both storage modes, across a
// restart with a snapshot written meanwhile, and from a cluster node other than the one that
// holds the gap.
import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { encodeUpdate } from '../../src/protocol/messages.js'
import { BACKENDS } from '../helpers/backends.js'
import { gapPair, hasPending } from '../helpers/gap-updates.js'
import { hocusClients, type HocusClients } from '../helpers/hocuspocus.js'
import { rawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

const cleanups: (() => Promise<unknown> | unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function restDoc(h: Harness, name: string): Promise<Y.Doc> {
  const res = await fetch(`${h.httpUrl}/ydoc/v1/acme/${name}`, { headers: { authorization: `Bearer ${await h.token('acme', name)}`, accept: 'application/octet-stream' } })
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
