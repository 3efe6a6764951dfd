import { describe, expect, it } from 'vitest'
import { decodeBusMessage, encodeBusMessage } from './codec.js'

describe('bus message codec', () => {
  it('round-trips update, awareness and awareness-query messages byte for byte', () => {
    const update = { type: 'update' as const, node: 'n-1', fromSeq: 7, toSeq: 300, update: new Uint8Array([1, 2, 3, 0, 255]) }
    const bytes = encodeBusMessage(update)
    expect([...bytes.slice(0, 5)]).toEqual([0, 3, 110, 45, 49]) // type, varString "n-1"
    expect(decodeBusMessage(bytes)).toEqual(update)
    const aw = { type: 'awareness' as const, node: 'x', update: new Uint8Array([9]) }
    expect(decodeBusMessage(encodeBusMessage(aw))).toEqual(aw)
    const q = { type: 'awareness-query' as const, node: 'y' }
    expect([...encodeBusMessage(q)]).toEqual([2, 1, 121])
    expect(decodeBusMessage(encodeBusMessage(q))).toEqual(q)
  })

  it.each([
    ['an unknown type', [9, 1, 120]],
    ['a truncated update', [0, 1, 120, 1]],
    ['an empty seq range', [0, 1, 120, 5, 4, 0]],
    ['seq 0', [0, 1, 120, 0, 0, 0]],
    ['trailing bytes', [2, 1, 120, 0]],
  ])('refuses %s', (_, bytes) => {
    expect(() => decodeBusMessage(new Uint8Array(bytes))).toThrow()
  })
})
