// Presence on a real server with stock providers of both protocols: a joiner gets every live
// state, a leave reaches everyone, a burst arrives as its latest states in fewer frames than
// changes, a quiet room's one cursor move goes out at once however long the window, and bad
// awareness frames (another user's client id, a state over the bound, a socket over its budget)
// are refused with a close code and a reason, never relayed. The 30 s timeout is proven on the
// room's awareness with a fake clock (src/collab/room/awareness.test.ts).
import { afterEach, describe, expect, it } from 'vitest'
import type { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { decodeAwareness, encodeAwarenessState } from '@tandem/protocol/awareness-entries'
import { decodeMessage, encodeAwareness, encodeSyncStep1 } from '@tandem/protocol/messages'
import { authenticated, hocusClients } from '../helpers/hocuspocus.js'
import { rawClient, type RawClient } from '../helpers/raw-client.js'
import { eventually, startTandem, synced, type Harness } from '../helpers/tandem.js'

let h: Harness
const cleanups: (() => void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) c()
  await h?.close()
})

const names = (states: Map<number, Record<string, any>>) =>
  [...states.values()]
    .map((s) => s.user?.name)
    .filter(Boolean)
    .sort()

/** A provider that announces nothing until told (its open sends no state). */
function silentProvider(doc: string, token: string): WebsocketProvider {
  const p = h.provider('acme', doc, token)
  p.awareness.setLocalState(null)
  return p
}

/** Awareness updates a raw client received, decoded. */
const awarenessOf = (c: RawClient) =>
  c.messages.flatMap((m) => {
    const d = decodeMessage(m)
    return d.type === 'awareness' ? [decodeAwareness(d.update)] : []
  })

describe('presence', () => {
  it('a joiner gets every live state and a leave reaches everyone, y-websocket and Hocuspocus providers alike', async () => {
    h = await startTandem({}, { api: false })
    const doc = 'presence-join'
    const yws = await Promise.all(
      ['ann', 'bob', 'cid'].map(async (n) => {
        const p = h.provider('acme', doc, await h.token('acme', doc, { sub: n }))
        p.awareness.setLocalStateField('user', { name: n })
        return p
      }),
    )
    const c = hocusClients()
    cleanups.push(() => c.destroy())
    const hp = c.provider(c.socket(h.wsUrl), `acme/${doc}`, await h.token('acme', doc, { sub: 'hana' }))
    await authenticated(hp)
    hp.setAwarenessField('user', { name: 'hana' })
    await eventually(() => expect(names(yws[0]!.awareness.getStates())).toEqual(['ann', 'bob', 'cid', 'hana']))

    const late = h.provider('acme', doc, await h.token('acme', doc, { sub: 'dan' }))
    await synced(late)
    await eventually(() => expect(names(late.awareness.getStates())).toEqual(['ann', 'bob', 'cid', 'hana']))

    yws[1]!.destroy() // bob leaves
    await eventually(() => {
      expect(names(late.awareness.getStates())).toEqual(['ann', 'cid', 'hana'])
      expect(names(hp.awareness!.getStates())).toEqual(['ann', 'cid', 'hana'])
      expect(names(yws[0]!.awareness.getStates())).toEqual(['ann', 'cid', 'hana'])
    })
  })

  it('a joiner gets each live state once: one snapshot, not repeated by a later change', async () => {
    h = await startTandem({}, { api: false })
    const doc = 'presence-once'
    const ps = await Promise.all(
      ['ann', 'bob', 'cid'].map(async (n) => {
        const p = h.provider('acme', doc, await h.token('acme', doc, { sub: n }))
        p.awareness.setLocalStateField('user', { name: n })
        await synced(p)
        return p
      }),
    )
    await eventually(() => expect(names(ps[0]!.awareness.getStates())).toEqual(['ann', 'bob', 'cid']))
    const joiner = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc, { sub: 'joe' })}`)
    cleanups.push(() => joiner.ws.close())
    joiner.send(encodeSyncStep1(Y.encodeStateVector(new Y.Doc())))
    await eventually(() =>
      expect(
        awarenessOf(joiner)
          .flat()
          .filter((e) => e.state !== null).length,
      ).toBeGreaterThanOrEqual(3),
    )
    // a change after the snapshot: once it arrives, anything sent to the joiner before it has too
    ps[0]!.awareness.setLocalStateField('cursor', 1)
    const annId = ps[0]!.awareness.clientID
    await eventually(() =>
      expect(
        awarenessOf(joiner)
          .flat()
          .some((e) => e.clientId === annId && (e.state as any)?.cursor === 1),
      ).toBe(true),
    )
    const entries = awarenessOf(joiner).flat()
    for (const p of ps) {
      const id = p.awareness.clientID
      expect(entries.filter((e) => e.clientId === id && (e.state as any)?.cursor === undefined)).toHaveLength(1)
    }
    expect(entries).toHaveLength(4)
  })

  it('a burst of cursor moves arrives as its latest state, in fewer frames than moves, on both protocols', async () => {
    h = await startTandem({}, { api: false })
    const doc = 'presence-burst'
    const ann = h.provider('acme', doc, await h.token('acme', doc, { sub: 'ann' }))
    ann.awareness.setLocalStateField('user', { name: 'ann' }) // a clock-0 state is shown to nobody
    const bob = h.provider('acme', doc, await h.token('acme', doc, { sub: 'bob' }))
    const c = hocusClients()
    cleanups.push(() => c.destroy())
    const hp = c.provider(c.socket(h.wsUrl), `acme/${doc}`, await h.token('acme', doc, { sub: 'hana' }))
    await Promise.all([synced(ann), synced(bob), authenticated(hp)])
    const annId = ann.awareness.clientID
    await eventually(() =>
      expect([bob.awareness.getStates().has(annId), hp.awareness!.getStates().has(annId)]).toEqual([true, true]),
    )
    let bobFrames = 0
    let hanaFrames = 0
    bob.awareness.on('update', ({ updated }: { updated: number[] }) => updated.includes(annId) && bobFrames++)
    hp.awareness!.on('update', ({ updated }: { updated: number[] }) => updated.includes(annId) && hanaFrames++)
    for (let i = 1; i <= 100; i++) ann.awareness.setLocalStateField('cursor', i)
    await eventually(() => {
      expect(bob.awareness.getStates().get(annId)?.cursor).toBe(100)
      expect(hp.awareness!.getStates().get(annId)?.cursor).toBe(100)
    })
    expect(bobFrames).toBeLessThan(100)
    expect(hanaFrames).toBeLessThan(100)
  })

  it("a quiet room's single cursor move is delivered at once, though the window is a minute", async () => {
    h = await startTandem({ awarenessWindowMs: 60_000, awarenessWindowMinMs: 60_000 }, { api: false })
    const doc = 'presence-quiet'
    const ann = silentProvider(doc, await h.token('acme', doc, { sub: 'ann' }))
    const bob = silentProvider(doc, await h.token('acme', doc, { sub: 'bob' }))
    await Promise.all([synced(ann), synced(bob)])
    ann.awareness.setLocalState({ cursor: 1 })
    // the test's timeout (10 s) is far below the window: only an immediate frame passes
    await eventually(() => expect(bob.awareness.getStates().get(ann.awareness.clientID)).toEqual({ cursor: 1 }))
  })

  it("refuses another user's client id (4400), a state over the bound (4400) and a socket over its budget (1008), relaying none of it", async () => {
    h = await startTandem({ awarenessMaxStateBytes: 1024, awarenessPerSec: 10, awarenessBurst: 50 }, { api: false })
    const doc = 'presence-bad'
    const ann = h.provider('acme', doc, await h.token('acme', doc, { sub: 'ann' }))
    ann.awareness.setLocalStateField('user', { name: 'ann' })
    const watcher = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc, { sub: 'wes' })}`)
    await synced(ann)
    const annId = ann.awareness.clientID
    await eventually(() =>
      expect(
        awarenessOf(watcher)
          .flat()
          .some((e) => e.clientId === annId),
      ).toBe(true),
    )
    const annClock = Math.max(
      ...awarenessOf(watcher)
        .flat()
        .filter((e) => e.clientId === annId)
        .map((e) => e.clock),
    )

    const mallory = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc, { sub: 'mallory' })}`)
    mallory.send(encodeAwareness(encodeAwarenessState(annId, annClock + 5, { user: { name: 'not ann' } })))
    expect(await mallory.closed).toEqual({ code: 4400, reason: expect.stringMatching(/belongs to another user/) })

    const big = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc, { sub: 'bigg' })}`)
    big.send(encodeAwareness(encodeAwarenessState(4242, 1, { user: { name: 'x'.repeat(2000) } })))
    expect(await big.closed).toEqual({ code: 4400, reason: expect.stringMatching(/over 1024 bytes/) })

    const fast = await rawClient(`${h.wsUrl}/acme/${doc}?yauth=${await h.token('acme', doc, { sub: 'fast' })}`)
    for (let c = 1; c <= 80; c++) fast.send(encodeAwareness(encodeAwarenessState(4343, c, { c })))
    expect(await fast.closed).toEqual({ code: 1008, reason: expect.stringMatching(/awareness rate limit/) })

    // ann is untouched and still heard: a change of hers after all that reaches the watcher
    ann.awareness.setLocalStateField('user', { name: 'ann 2' })
    await eventually(() =>
      expect(
        awarenessOf(watcher)
          .flat()
          .some((e) => e.clientId === annId && (e.state as any)?.user?.name === 'ann 2'),
      ).toBe(true),
    )
    const seen = awarenessOf(watcher).flat()
    expect(seen.some((e) => e.clientId === annId && (e.state as any)?.user?.name === 'not ann')).toBe(false)
    expect(seen.some((e) => e.clientId === 4242)).toBe(false)
    expect(
      seen.filter((e) => e.clientId === 4343).every((e) => (e.clock <= 50 && e.state !== null) || e.state === null),
    ).toBe(true)
    expect(ann.wsconnected).toBe(true)
    watcher.ws.close()
  })
})
