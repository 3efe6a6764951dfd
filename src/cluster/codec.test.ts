import { describe, expect, it } from 'vitest'
import { decodeBusMessage, encodeBusMessage } from './codec.js'

describe('bus message codec', () => {
  it('round-trips update, awareness and awareness-query messages byte for byte', () => {
    const update = {
      type: 'update' as const,
      node: 'n-1',
      docId: 'o/d',
      fromSeq: 7,
      toSeq: 300,
      update: new Uint8Array([1, 2, 3, 0, 255]),
    }
    const bytes = encodeBusMessage(update)
    // type, varString "n-1", varString "o/d"
    expect([...bytes.slice(0, 9)]).toEqual([0, 3, 110, 45, 49, 3, 111, 47, 100])
    expect(decodeBusMessage(bytes)).toEqual(update)
    const aw = { type: 'awareness' as const, node: 'x', docId: 'd', update: new Uint8Array([9]) }
    expect(decodeBusMessage(encodeBusMessage(aw))).toEqual(aw)
    const q = { type: 'awareness-query' as const, node: 'y', docId: 'd' }
    expect([...encodeBusMessage(q)]).toEqual([2, 1, 121, 1, 100])
    expect(decodeBusMessage(encodeBusMessage(q))).toEqual(q)
  })

  it.each([
    ['an unknown type', [9, 1, 120, 1, 100]],
    ['a truncated update', [0, 1, 120, 1, 100, 1]],
    ['an empty seq range', [0, 1, 120, 1, 100, 5, 4, 0]],
    ['seq 0', [0, 1, 120, 1, 100, 0, 0, 0]],
    ['trailing bytes', [2, 1, 120, 1, 100, 0]],
    ['a missing document', [2, 1, 120]],
  ])('refuses %s', (_, bytes) => {
    expect(() => decodeBusMessage(new Uint8Array(bytes))).toThrow()
  })
})
