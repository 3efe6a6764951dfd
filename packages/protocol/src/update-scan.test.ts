import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { scanUpdate, STRUCT_STRIDE, UpdateShape } from './update-scan.js'

/**
 * Updates with every kind of content Yjs encodes: strings, formats, embeds, any, JSON, binary, types, subdocs,
 * deletions, GC.
 */
function corpus(): Uint8Array[] {
  const out: Uint8Array[] = []
  const d = new Y.Doc()
  d.clientID = 1
  const capture = (fn: () => void) => {
    const sv = Y.encodeStateVector(d)
    fn()
    out.push(Y.encodeStateAsUpdate(d, sv))
  }
  capture(() => d.getText('t').insert(0, 'hello wörld 👋'))
  capture(() => d.getText('t').format(0, 5, { bold: true, link: { href: 'x' } }))
  capture(() => d.getText('t').insertEmbed(3, { image: 'a.png' }))
  capture(() => d.getMap('m').set('n', 1.5))
  capture(() =>
    d.getMap('m').set('o', { a: [1, 'two', null, true, { deep: [new Uint8Array([1, 2])] }], b: -7, c: 2n ** 40n }),
  )
  capture(() => d.getMap('m').set('bin', new Uint8Array([9, 8, 7])))
  capture(() => d.getArray('a').insert(0, [1, 'x', { y: 2 }]))
  capture(() => d.getMap('m').set('nested', new Y.Map()))
  capture(() => d.getXmlFragment('x').insert(0, [new Y.XmlElement('p'), new Y.XmlText('t')]))
  capture(() => d.getMap('m').set('sub', new Y.Doc({ guid: 'sub-1' })))
  capture(() => d.getText('t').delete(1, 4))
  capture(() => d.getArray('a').delete(0, 3))
  capture(() => d.getMap('m').delete('n'))
  out.push(Y.encodeStateAsUpdate(d)) // everything, with deletions and GC'd content
  out.push(Uint8Array.of(0, 0))
  // JSON content (ref 2), which Yjs still decodes but no longer writes: ['1', 'undefined'] in root 'j'
  const undef = Array.from('undefined', (c) => c.charCodeAt(0))
  out.push(Uint8Array.of(1, 1, 2, 0, 2, 1, 1, 106, 2, 1, 49, 9, ...undef, 0))
  return out
}

const accepts = (f: () => unknown) => {
  try {
    f()
    return true
  } catch {
    return false
  }
}

/** Deterministic PRNG (mulberry32) so a failure reproduces. */
function prng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('scanUpdate', () => {
  it('accepts every well-formed update of every content kind', () => {
    for (const u of corpus()) {
      expect(accepts(() => Y.decodeUpdate(u))).toBe(true)
      expect(() => scanUpdate(u)).not.toThrow()
    }
  })

  it('refuses exactly what Y.decodeUpdate refuses, over thousands of truncated and mutated updates', () => {
    const rand = prng(42)
    const base = corpus()
    let refused = 0
    for (let i = 0; i < 20_000; i++) {
      const src = base[Math.floor(rand() * base.length)]!
      let u: Uint8Array
      const kind = rand()
      if (kind < 0.3) {
        u = src.slice(0, Math.floor(rand() * src.length)) // truncated
      } else if (kind < 0.8) {
        u = src.slice()
        const flips = 1 + Math.floor(rand() * 3)
        for (let f = 0; f < flips; f++) u[Math.floor(rand() * u.length)] = Math.floor(rand() * 256)
      } else {
        const at = Math.floor(rand() * src.length)
        const extra = Uint8Array.from({ length: 1 + Math.floor(rand() * 4) }, () => Math.floor(rand() * 256))
        u = new Uint8Array([...src.subarray(0, at), ...extra, ...src.subarray(at)])
      }
      // A fresh buffer of exactly the update's size, as the server hands it over.
      const decoded = accepts(() => Y.decodeUpdate(u))
      const scanned = accepts(() => scanUpdate(u))
      if (decoded !== scanned) throw new Error(`scan ${scanned} but decode ${decoded} for [${Array.from(u)}]`)
      if (!decoded) refused++
    }
    expect(refused).toBeGreaterThan(1000)
  })

  it('refuses content refs and type refs Yjs does not know, and a subdocument without options', () => {
    // one client, one struct, client 1 clock 0, info = ref 11 with a root parent 'x'
    const unknownContent = Uint8Array.of(1, 1, 1, 0, 11, 1, 1, 120, 0, 0)
    expect(accepts(() => Y.decodeUpdate(unknownContent))).toBe(false)
    expect(() => scanUpdate(unknownContent)).toThrow()
    const unknownType = Uint8Array.of(1, 1, 1, 0, 7, 1, 1, 120, 9, 0)
    expect(accepts(() => Y.decodeUpdate(unknownType))).toBe(false)
    expect(() => scanUpdate(unknownType)).toThrow()
    // content 9 (doc): guid 'g', options `null` (any tag 126)
    const nullOpts = Uint8Array.of(1, 1, 1, 0, 9, 1, 1, 120, 1, 103, 126, 0)
    expect(accepts(() => Y.decodeUpdate(nullOpts))).toBe(false)
    expect(() => scanUpdate(nullOpts)).toThrow()
  })

  it("reports each client's clock range exactly as Y.decodeUpdate reads it", () => {
    const shape = new UpdateShape()
    for (const u of corpus()) {
      scanUpdate(u, shape)
      const byClient = new Map<number, [number, number]>()
      for (const s of Y.decodeUpdate(u).structs) {
        const r = byClient.get(s.id.client)
        byClient.set(s.id.client, [r ? r[0] : s.id.clock, s.id.clock + s.length])
      }
      const ranges: number[] = []
      for (const [client, [first, end]] of byClient) ranges.push(client, first, end)
      expect(shape.ranges).toEqual(ranges)
    }
  })

  it("calls integrable the edits editors make: typing, map sets, inserts between other clients' items", () => {
    const shape = new UpdateShape()
    const a = new Y.Doc()
    a.clientID = 1
    const b = new Y.Doc()
    b.clientID = 2
    const edit = (d: Y.Doc, fn: () => void) => {
      const sv = Y.encodeStateVector(d)
      fn()
      const u = Y.encodeStateAsUpdate(d, sv)
      Y.applyUpdate(d === a ? b : a, u)
      return u
    }
    const updates = [
      edit(a, () => a.getText('t').insert(0, 'hello')),
      edit(a, () => a.getText('t').insert(5, '!')),
      edit(b, () => b.getText('t').insert(2, 'XY')), // between two of a's characters
      edit(b, () => b.getMap('m').set('k', 1)),
      edit(a, () => a.getMap('m').set('k', 2)), // overwrites b's entry: origin in another client
      edit(a, () => a.getXmlFragment('x').insert(0, [new Y.XmlElement('p')])),
    ]
    for (const u of updates) {
      scanUpdate(u, shape)
      expect(shape.integrable).toBe(true)
    }
  })

  it('calls integrable a parent named by id and a Skip, but not an item naming its own later clock', () => {
    const shape = new UpdateShape()
    const d = new Y.Doc()
    d.clientID = 1
    d.getXmlFragment('x').insert(0, [new Y.XmlElement('p')])
    const sv = Y.encodeStateVector(d)
    ;(d.getXmlFragment('x').get(0) as Y.XmlElement).insert(0, [new Y.XmlText('in an empty element')])
    scanUpdate(Y.encodeStateAsUpdate(d, sv), shape) // parent: the element's item id, an earlier clock
    expect(shape.integrable).toBe(true)
    // two updates of one client merged with a hole between them carry a Skip
    const e = new Y.Doc()
    e.clientID = 7
    const parts: Uint8Array[] = []
    for (const s of ['a', 'b', 'c']) {
      const before = Y.encodeStateVector(e)
      e.getMap('m').set(s, s)
      parts.push(Y.encodeStateAsUpdate(e, before))
    }
    scanUpdate(Y.mergeUpdates([parts[0]!, parts[2]!]), shape)
    expect(shape.integrable).toBe(true)
    expect(shape.structs.filter((_, i) => i % STRUCT_STRIDE === 1)).toEqual([0, 2]) // the Skip is no struct
    // client 1, clock 0, a string item whose origin is (1, 5): its own client, ahead of it
    const ahead = Uint8Array.of(1, 1, 1, 0, 0x84, 1, 5, 1, 120, 0)
    expect(accepts(() => Y.decodeUpdate(ahead))).toBe(true)
    scanUpdate(ahead, shape)
    expect(shape.integrable).toBe(false)
    scanUpdate(Uint8Array.of(0, 0), shape)
    expect(shape.integrable).toBe(true)
    expect(shape.ranges).toEqual([])
  })

  it('reports each struct with the ids it needs of other clients, and every deleted range', () => {
    const shape = new UpdateShape()
    const a = new Y.Doc()
    a.clientID = 1
    a.getText('t').insert(0, 'ab')
    const b = new Y.Doc()
    b.clientID = 2
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    const sv = Y.encodeStateVector(b)
    b.getText('t').insert(1, 'X') // between a's (1, 0) and (1, 1)
    b.getText('t').delete(0, 1)
    scanUpdate(Y.encodeStateAsUpdate(b, sv), shape)
    expect(shape.structs).toEqual([2, 0, 1, 1, 0, 1, 1])
    expect(shape.deletes).toEqual([1, 0, 1])
  })

  it('updates called integrable apply without throwing, alone or many in one transaction, over thousands of mutated updates', () => {
    const rand = prng(Number(process.env.FUZZ_SEED ?? 7))
    const base = corpus()
    const shape = new UpdateShape()
    const seed = Y.encodeStateAsUpdate(
      (() => {
        const d = new Y.Doc()
        d.clientID = 1
        for (const u of base) Y.applyUpdate(d, u)
        d.clientID = 2
        d.getText('t').insert(2, 'other client')
        return d
      })(),
    )
    const innocent = (d: Y.Doc) => {
      const e = new Y.Doc()
      e.clientID = 3
      Y.applyUpdate(e, Y.encodeStateAsUpdate(d))
      const sv = Y.encodeStateVector(e)
      e.getText('t').insert(1, 'z')
      e.getText('t').delete(0, 1)
      return Y.encodeStateAsUpdate(e, sv)
    }
    let tried = 0
    let d = new Y.Doc()
    let batch: Uint8Array[] = []
    for (let i = 0; i < Number(process.env.FUZZ_N ?? 30_000); i++) {
      const u = base[Math.floor(rand() * base.length)]!.slice()
      const flips = 1 + Math.floor(rand() * 3)
      // small values mostly: they keep the update decodable while moving clocks, clients and flags
      for (let f = 0; f < flips; f++) u[Math.floor(rand() * u.length)] = Math.floor(rand() * (rand() < 0.8 ? 40 : 256))
      if (!accepts(() => scanUpdate(u, shape)) || !shape.integrable) continue
      tried++
      if (tried % 40 === 1) {
        d = new Y.Doc()
        Y.applyUpdate(d, seed)
      }
      if (tried % 2 === 0) {
        if (!accepts(() => Y.applyUpdate(d, u))) throw new Error(`integrable but throws: [${Array.from(u)}]`)
      } else batch.push(u)
      if (batch.length === 5) {
        const b = batch
        batch = []
        if (!accepts(() => Y.transact(d, () => b.forEach((x) => Y.applyUpdate(d, x)))))
          throw new Error(`integrable batch throws: ${JSON.stringify(b.map((x) => Array.from(x)))}`)
        // what the document keeps pending afterwards must not break the next client's update
        if (!accepts(() => Y.applyUpdate(d, innocent(d))))
          throw new Error(`a later update throws after ${JSON.stringify(b.map((x) => Array.from(x)))}`)
      }
    }
    expect(tried).toBeGreaterThan(1000)
  })
})
