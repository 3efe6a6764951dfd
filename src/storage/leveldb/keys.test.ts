import * as encoding from 'lib0/encoding'
import { describe, expect, it } from 'vitest'
import type { Attributes } from '../doc-store.js'
import { decodeUpdateValue, encodeUpdateValues } from './keys.js'

/** The value layout as lib0's encoder writes it (how every stored value so far was written). */
function lib0Value(user: string, at: number, update: Uint8Array, attrs?: Attributes): Uint8Array {
  const e = encoding.createEncoder()
  const marked = attrs !== undefined || user === ''
  if (marked) encoding.writeVarUint(e, 0)
  encoding.writeVarString(e, user)
  encoding.writeVarUint(e, at)
  if (marked) encoding.writeVarString(e, JSON.stringify(attrs ?? null))
  encoding.writeUint8Array(e, update)
  return encoding.toUint8Array(e)
}

describe('update values', () => {
  const entries = [
    { user: 'ada', at: 1_764_000_000_123, update: Uint8Array.of(1, 2, 3) },
    { user: '', at: 0, update: Uint8Array.of(0, 0) },
    { user: 'zoë 名前 🙂', at: 2 ** 40 + 5, update: new Uint8Array(300).fill(7), attrs: { source: 'ai', note: 'ünï' } },
    { user: 'x'.repeat(200), at: 127, update: new Uint8Array(0) },
  ]

  it('encodes a cycle into one buffer, each value byte for byte what lib0 wrote, and decodes back', () => {
    const values = encodeUpdateValues(entries)
    expect(values).toHaveLength(entries.length)
    expect(new Set(values.map((v) => v.buffer)).size).toBe(1)
    entries.forEach((e, i) => {
      expect([...values[i]!]).toEqual([...lib0Value(e.user, e.at, e.update, e.attrs)])
      const back = decodeUpdateValue(values[i]!)
      expect(back.user).toBe(e.user)
      expect(back.at).toBe(e.at)
      expect([...back.update]).toEqual([...e.update])
      expect(back.attrs).toEqual(e.attrs)
    })
  })
})
