import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { scanUpdate, UpdateShape } from '@tandem/protocol/update-scan'
import { gapPair, orphanUpdate } from '../../../test/helpers/gap-updates.js'
import { content, edit, prng } from '../../../test/helpers/random-edits.js'
import { DocState } from './doc-state.js'
import { MAX_HELD_STRUCTS } from './held-updates.js'

const shape = new UpdateShape()
const feed = (s: DocState, u: Uint8Array) => {
  scanUpdate(u, shape)
  expect(shape.integrable).toBe(true)
  return s.accept(u, shape)
}

const served = (s: DocState) => {
  const d = new Y.Doc()
  Y.applyUpdate(d, s.full())
  return d
}

describe('DocState', () => {
  it('serves what an eager Y.Doc holds, over random edits of three clients sent out of order, with gaps, re-sends and offline periods', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const rand = prng(seed)
      const clients = [1, 2, 3].map((id) => {
        const d = new Y.Doc()
        d.clientID = id
        return d
      })
      const wire: Uint8Array[] = []
      for (const d of clients) d.on('update', (u: Uint8Array) => wire.push(u))
      const state = new DocState()
      const eager = new Y.Doc()
      const sent: Uint8Array[] = []
      // peers that join now and then from the full state, then get what the room broadcasts
      const joiners: Y.Doc[] = []
      for (let step = 0; step < 300; step++) {
        if (rand() < 0.05) {
          const j = new Y.Doc()
          Y.applyUpdate(j, state.full())
          joiners.push(j)
        }
        const writer = clients[Math.floor(rand() * clients.length)]!
        edit(writer, rand)
        // a client that was offline catches up with another now and then (state + its own edits)
        if (rand() < 0.1) {
          const other = clients[Math.floor(rand() * clients.length)]!
          Y.applyUpdate(writer, Y.encodeStateAsUpdate(other, Y.encodeStateVector(writer)))
        }
        // the wire delivers updates late and out of order, and sometimes twice
        while (wire.length > 0 && rand() < 0.7) {
          const i = rand() < 0.2 ? Math.floor(rand() * wire.length) : 0
          const u = wire.splice(i, 1)[0]!
          sent.push(u)
          const verdict = feed(state, u)
          if (verdict !== 'unchanged') for (const j of joiners) Y.applyUpdate(j, u)
          const before = Y.encodeStateVector(eager)
          Y.applyUpdate(eager, u)
          if (verdict === 'unchanged') expect(Y.encodeStateVector(eager)).toEqual(before)
          if (rand() < 0.1 && sent.length > 1)
            expect(feed(state, sent[Math.floor(rand() * sent.length)]!)).not.toBe('ready')
        }
        // the state vector announced never claims what an eager document keeps pending
        expect(Y.decodeStateVector(state.stateVector())).toEqual(Y.decodeStateVector(Y.encodeStateVector(eager)))
        if (step % 50 === 0) expect(content(served(state))).toEqual(content(eager))
      }
      const broadcast = (u: Uint8Array) => {
        sent.push(u)
        if (feed(state, u) !== 'unchanged') for (const j of joiners) Y.applyUpdate(j, u)
        Y.applyUpdate(eager, u)
      }
      for (const u of wire) broadcast(u)
      for (const d of clients) broadcast(Y.encodeStateAsUpdate(d, state.stateVector()))
      expect(state.heldCount).toBe(0)
      expect(joiners.length).toBeGreaterThan(0)
      // a peer that joined during a gap holds what was held then, so it has everything now
      for (const j of joiners) {
        expect(Y.encodeStateVector(j)).toEqual(Y.encodeStateVector(eager))
        expect(content(j)).toEqual(content(eager))
      }
      const got = served(state)
      expect(content(got)).toEqual(content(eager))
      // formatting too, against a document built from everything sent at once
      const whole = new Y.Doc()
      Y.applyUpdate(whole, Y.mergeUpdates(sent))
      expect(got.getText('t').toDelta()).toEqual(whole.getText('t').toDelta())
      expect(Y.encodeStateVector(got)).toEqual(Y.encodeStateVector(eager))
      // a diff against any client's state vector brings that client to the same document
      for (const d of clients) {
        Y.applyUpdate(d, state.diff(Y.encodeStateVector(d)))
        expect(content(d)).toEqual(content(eager))
      }
      // loading what was accepted (as a log) gives the same state
      const again = DocState.load(null, sent)
      expect(content(served(again))).toEqual(content(eager))
    }
  })

  it('holds an update whose dependency is missing, announces none of it, and serves it once the gap fills', () => {
    const d = new Y.Doc()
    d.clientID = 7
    d.getText('t').insert(0, 'a')
    const first = Y.encodeStateAsUpdate(d)
    const sv = Y.encodeStateVector(d)
    d.getText('t').insert(1, 'b')
    const second = Y.encodeStateAsUpdate(d, sv)
    const s = new DocState()
    expect(feed(s, second)).toBe('held')
    expect(feed(s, second)).toBe('unchanged') // a re-send of what is held
    expect(feed(s, Y.mergeUpdates([second]))).toBe('unchanged') // the same structs in other bytes
    expect(Y.decodeStateVector(s.stateVector()).size).toBe(0)
    // served as a Y.Doc serves pending structs: not integrated, not in the state vector
    const joiner = new Y.Doc()
    Y.applyUpdate(joiner, s.diff(Uint8Array.of(0)))
    expect(joiner.getText('t').toString()).toBe('')
    expect(joiner.store.pendingStructs).not.toBeNull()
    expect(feed(s, first)).toBe('ready')
    Y.applyUpdate(joiner, first)
    expect(joiner.getText('t').toString()).toBe('ab')
    expect(s.heldCount).toBe(0)
    expect(served(s).getText('t').toString()).toBe('ab')
    expect(Y.decodeStateVector(s.stateVector()).get(7)).toBe(2)
  })

  it('serves the part of an update that integrates at once and holds only the rest, as a Y.Doc does', () => {
    // a provider that holds someone's pending structs re-sends them with its own new edits
    const { u1: first, u2: second } = gapPair(7)
    const own = new Y.Doc()
    own.clientID = 8
    own.getMap('m').set('k', 'mine')
    const both = Y.mergeUpdates([second, Y.encodeStateAsUpdate(own)])
    const s = new DocState()
    expect(feed(s, both)).toBe('ready')
    expect(Y.decodeStateVector(s.stateVector())).toEqual(new Map([[8, 1]])) // its own edit is served
    expect(s.heldCount).toBe(1)
    expect(served(s).getMap('m').get('k')).toBe('mine')
    expect(feed(s, second)).toBe('unchanged') // what is held, sent again
    scanUpdate(both, shape)
    expect(s.has(both, shape)).toBe(true) // a read-only peer re-sending it writes nothing
    expect(feed(s, first)).toBe('ready')
    expect(s.heldCount).toBe(0)
    expect(served(s).getText('t').toString()).toBe('first second')
  })

  it('keeps what is held across a snapshot that carries it behind its gap, held, neither lost nor served early', () => {
    const d = new Y.Doc()
    d.clientID = 3
    d.getText('t').insert(0, 'x')
    const base = Y.encodeStateAsUpdate(d)
    const sv = Y.encodeStateVector(d)
    const { u1: one, u2: two } = gapPair(4)
    const live = new DocState()
    feed(live, base)
    expect(feed(live, two)).toBe('held')
    const snapshot = Y.mergeUpdates([live.parts()[0]!, live.heldPart()!]) // as compaction writes it
    const loaded = DocState.load(snapshot, [])
    expect(loaded.heldCount).toBe(1)
    expect(loaded.stateVector()).toEqual(sv)
    expect(served(loaded).getText('t').toString()).toBe('x')
    expect(feed(loaded, one)).toBe('ready')
    const eager = new Y.Doc()
    for (const u of [base, two, one]) Y.applyUpdate(eager, u)
    expect(served(loaded).getText('t').toString()).toBe(eager.getText('t').toString())
    expect(loaded.heldCount).toBe(0)
  })

  it('refuses, past its bounds, an update a writer sends that would be held, taking none of it; a committed one is still held', () => {
    const s = new DocState()
    const per = 100
    for (let i = 0; i < MAX_HELD_STRUCTS / per; i++) expect(feed(s, orphanUpdate(100 + i, per))).toBe('held')
    const over = orphanUpdate(99, 1)
    scanUpdate(over, shape)
    expect(() => s.accept(over, shape, true)).toThrow(/waiting for what they build on/)
    expect(s.heldCount).toBe(MAX_HELD_STRUCTS / per)
    expect(s.accept(over, shape)).toBe('held') // a log replay or another node's commit
  })

  it('tells a re-sent delete set from a new deletion without a Y.Doc', () => {
    const d = new Y.Doc()
    d.clientID = 1
    d.getText('t').insert(0, 'hello world')
    const s = new DocState()
    expect(feed(s, Y.encodeStateAsUpdate(d))).toBe('ready')
    const sv = Y.encodeStateVector(d)
    d.getText('t').delete(0, 6)
    expect(feed(s, Y.encodeStateAsUpdate(d, sv))).toBe('ready')
    // a reconnecting provider's step 2 carries its whole delete set again
    expect(feed(s, Y.encodeStateAsUpdate(d, sv))).toBe('unchanged')
    expect(feed(s, Y.encodeStateAsUpdate(d))).toBe('unchanged')
    d.getText('t').delete(0, 1)
    expect(feed(s, Y.encodeStateAsUpdate(d, sv))).toBe('ready')
    expect(served(s).getText('t').toString()).toBe('orld')
  })

  it('keeps its levels few and merged as updates pour in, and a full state equal to merging them all', () => {
    const d = new Y.Doc()
    d.clientID = 3
    const all: Uint8Array[] = []
    d.on('update', (u: Uint8Array) => all.push(u))
    const s = new DocState()
    for (let i = 0; i < 3000; i++) {
      d.getText('t').insert(i, 'x')
      feed(s, all[all.length - 1]!)
    }
    const levels = (s as unknown as { served: { levels: Uint8Array[] } }).served.levels.length
    expect(levels).toBeLessThanOrEqual(8)
    expect(served(s).getText('t').length).toBe(3000)
    expect(s.bytes).toBeLessThan(Y.mergeUpdates(all).length * 3)
  })

  it('loads a large log without merging it into one, and never merges a level past 8 MB while serving', () => {
    const d = new Y.Doc()
    d.clientID = 5
    const log: Uint8Array[] = []
    d.on('update', (u: Uint8Array) => log.push(u))
    for (let i = 0; i < 20; i++) {
      d.transact(() => {
        d.getText('t').insert(d.getText('t').length, String.fromCharCode(97 + i).repeat(1024 * 1024))
        d.getText('t').delete(i * 1024 * 1024, 1) // a deletion in every update: the delete index has work
      })
    }
    const loaded = DocState.load(null, log)
    for (const p of loaded.parts()) expect(p.length).toBeLessThanOrEqual(8 * 1024 * 1024)
    expect(loaded.parts().length).toBeGreaterThan(2) // several parts, not one 20 MB merge
    // Applied in order, the parts are the document, with nothing left pending.
    const fromParts = new Y.Doc()
    for (const p of loaded.parts()) Y.applyUpdate(fromParts, p)
    expect(fromParts.getText('t').toString()).toBe(d.getText('t').toString())
    expect((fromParts.store as unknown as { pendingStructs: unknown }).pendingStructs).toBeNull()
    // Served on, updates merge in bounded steps: no level grows past 8 MB.
    d.getText('t').insert(0, 'more')
    expect(feed(loaded, log[log.length - 1]!)).toBe('ready')
    for (let i = 0; i < 100; i++) {
      d.getText('t').insert(i, 'y')
      feed(loaded, log[log.length - 1]!)
    }
    for (const p of loaded.parts()) expect(p.length).toBeLessThanOrEqual(8 * 1024 * 1024)
    expect((loaded as unknown as { served: { levels: Uint8Array[] } }).served.levels.length).toBeLessThanOrEqual(5)
    const peer = new Y.Doc()
    for (const p of loaded.answerParts(Uint8Array.of(0))) Y.applyUpdate(peer, p)
    expect(peer.getText('t').toString()).toBe(d.getText('t').toString())
    expect(served(loaded).getText('t').toString()).toBe(d.getText('t').toString())
    // A re-sent deletion is known (the index was built from the parts, unmerged).
    expect(feed(loaded, log[1]!)).toBe('unchanged')
  })

  it('loads a log of 20,000 small updates without a snapshot into a few parts, in bounded merges', () => {
    const d = new Y.Doc()
    d.clientID = 9
    const log: Uint8Array[] = []
    d.on('update', (u: Uint8Array) => log.push(u))
    for (let i = 0; i < 20_000; i++) d.getText('t').insert(i, 'z')
    const loaded = DocState.load(null, log)
    expect(loaded.parts().length).toBeLessThan(120) // levels, then a tail under 96
    expect(served(loaded).getText('t').length).toBe(20_000)
  })
})
