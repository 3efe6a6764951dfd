import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { decodeAwareness, encodeAwarenessState } from '@tandem/protocol/awareness-entries'
import { decodeMessage } from '@tandem/protocol/messages'
import { Peer } from '../peer.js'
import type { PeerSocket } from '../transport.js'
import { RoomAwareness } from './awareness.js'

const socket: PeerSocket = { send: () => true, close: () => undefined, bufferedAmount: () => 0 }
const peerOf = (sub: string) =>
  new Peer(socket, { sub, org: 'o', doc: 'd', branch: 'main', acc: 'rw', exp: 9e9, jti: '' })
const state = (id: number, clock: number, s: unknown) => encodeAwarenessState(id, clock, s)

/** A room's awareness whose frames are recorded, decoded: one array of entries per frame. */
function setup(settings = { windowMinMs: 5, windowMaxMs: 50, maxStateBytes: 1024, perSec: 10, burst: 20 }) {
  const frames: { clientId: number; clock: number; state: unknown }[][] = []
  const aw = new RoomAwareness(
    (frame) => {
      const m = decodeMessage(frame)
      if (m.type === 'awareness') frames.push(decodeAwareness(m.update))
    },
    settings,
    () => Date.now(),
  )
  const bus: Uint8Array[] = []
  return { aw, frames, bus }
}

beforeEach(() => void vi.useFakeTimers())
afterEach(() => void vi.useRealTimers())

describe('RoomAwareness', () => {
  it("states from a burst go out as one frame holding each client's latest, built from the entries as received", () => {
    const { aw, frames } = setup()
    const ann = peerOf('ann')
    for (let c = 1; c <= 10; c++) aw.receive(ann, state(7, c, { cursor: c }))
    aw.receive(peerOf('bob'), state(8, 1, { cursor: 0 }))
    vi.advanceTimersByTime(0)
    expect(frames).toEqual([
      [
        { clientId: 7, clock: 10, state: { cursor: 10 } },
        { clientId: 8, clock: 1, state: { cursor: 0 } },
      ],
    ])
    expect(decodeAwareness(aw.encodeAll()!).map((e) => e.clientId)).toEqual([7, 8]) // what a joiner gets
  })

  it('a state not renewed within 30 s is removed for everyone, a renewed one stays; one timer for the room', () => {
    const { aw, frames } = setup({ windowMinMs: 5, windowMaxMs: 50, maxStateBytes: 1024, perSec: 0, burst: 1 })
    const p = peerOf('ann')
    for (let id = 1; id <= 1000; id++) aw.receive(p, state(id, 1, { n: id }))
    expect(vi.getTimerCount()).toBe(2) // the window's flush and the one timeout timer
    vi.advanceTimersByTime(20_000)
    aw.receive(p, state(1, 2, { n: 1 })) // renewed
    frames.length = 0
    vi.advanceTimersByTime(11_000)
    const removed = frames.flat().filter((e) => e.state === null)
    expect(removed).toHaveLength(999)
    expect(removed.find((e) => e.clientId === 1)).toBeUndefined()
    expect(removed[0]).toEqual({ clientId: 2, clock: 1, state: null }) // the last clock, null: as y-protocols removes
    expect(decodeAwareness(aw.encodeAll()!).map((e) => e.clientId)).toEqual([1])
    aw.close()
    expect(vi.getTimerCount()).toBe(0)
  })

  it("a leave removes the peer's states for everyone; an echo of a state the room holds is dropped, not relayed", () => {
    const { aw, frames } = setup()
    const ann = peerOf('ann')
    const bob = peerOf('bob')
    aw.receive(ann, state(7, 3, { u: 'ann' }))
    vi.advanceTimersByTime(100)
    aw.receive(bob, state(7, 3, { u: 'ann' })) // bob's provider sends back what it was sent
    vi.advanceTimersByTime(100)
    expect(frames).toHaveLength(1)
    aw.forget(ann)
    vi.advanceTimersByTime(100)
    expect(frames[1]).toEqual([{ clientId: 7, clock: 3, state: null }])
    expect(aw.encodeAll()).toBeNull()
  })

  it("refuses whole, relaying nothing: another user's client id, a state over the bound, a non-JSON state, a socket over its budget; the same user may take its id over", () => {
    const { aw, frames } = setup()
    const ann = peerOf('ann')
    aw.receive(ann, state(7, 1, { u: 'ann' }))
    const mallory = peerOf('mallory')
    expect(() =>
      aw.receive(mallory, Uint8Array.from([...joinTwo(state(9, 1, { u: 'm' }), state(7, 2, { u: 'not ann' }))])),
    ).toThrow(
      expect.objectContaining({ code: 'malformed_message', message: expect.stringMatching(/belongs to another user/) }),
    )
    expect(() => aw.receive(mallory, state(9, 1, { big: 'x'.repeat(2000) }))).toThrow(
      expect.objectContaining({ code: 'malformed_message' }),
    )
    expect(() => aw.receive(mallory, Uint8Array.from([1, 9, 1, 1, 0x7b]))).toThrow(
      expect.objectContaining({ code: 'malformed_message' }),
    )
    for (let c = 1; c <= 20; c++) aw.receive(mallory, state(9, c, {}))
    expect(() => aw.receive(mallory, state(9, 21, {}))).toThrow(expect.objectContaining({ code: 'rate_limited' }))
    const annAgain = peerOf('ann') // a reconnect before the old socket's close was seen
    aw.receive(annAgain, state(7, 2, { u: 'ann again' }))
    vi.advanceTimersByTime(0)
    const seen = new Map(frames.flat().map((e) => [e.clientId, e.state]))
    expect(seen.get(7)).toEqual({ u: 'ann again' })
    expect(frames.flat().some((e) => e.clientId === 9 && e.clock > 20)).toBe(false)
    aw.forget(ann) // the old socket's close: the state is no longer its
    vi.advanceTimersByTime(100)
    expect(decodeAwareness(aw.encodeAll()!).find((e) => e.clientId === 7)!.state).toEqual({ u: 'ann again' })
  })

  it("in a cluster, this node's changes go to the bus once per window; another node's only to local sockets", () => {
    const { aw, frames, bus } = setup()
    aw.relayTo((u) => bus.push(u))
    const ann = peerOf('ann')
    for (let c = 1; c <= 5; c++) aw.receive(ann, state(7, c, { c }))
    aw.applyRemote('node-b', state(8, 1, { from: 'b' }))
    vi.advanceTimersByTime(0)
    expect(bus.map((u) => decodeAwareness(u))).toEqual([[{ clientId: 7, clock: 5, state: { c: 5 } }]])
    expect(frames.flat().map((e) => e.clientId)).toEqual([7, 8])
    expect(decodeAwareness(aw.encodeLocal()!).map((e) => e.clientId)).toEqual([7])
    aw.dropRemote('node-b', [8])
    vi.advanceTimersByTime(100)
    expect(frames.at(-1)).toEqual([{ clientId: 8, clock: 1, state: null }])
    expect(bus).toHaveLength(1)
  })
})

/** Two one-entry updates as one update of two entries. */
function joinTwo(a: Uint8Array, b: Uint8Array): Uint8Array {
  return Uint8Array.from([2, ...a.subarray(1), ...b.subarray(1)])
}
