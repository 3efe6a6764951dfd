import * as encoding from 'lib0/encoding'
import { describe, expect, it } from 'vitest'
import { decodeAwareness, encodeAwarenessState } from './awareness-entries.js'
import { Framing } from './client-framing.js'
import { encodeName } from './hocuspocus.js'

/** A frame as lib0's encoder writes it: the reference the one-allocation writer must match. */
function lib0Frame(name: string | null, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder()
  if (name !== null) encoding.writeVarString(e, name)
  write(e)
  return encoding.toUint8Array(e)
}

describe('Framing', () => {
  const payload = new Uint8Array(300).map((_, i) => i % 251)
  for (const [dialect, name] of [
    ['yws', null],
    ['hocuspocus', 'org/döc'],
  ] as const) {
    const f = new Framing(dialect, name ?? 'ignored')
    it(`${dialect}: writes what lib0 writes`, () => {
      expect(f.update(payload)).toEqual(
        lib0Frame(
          name,
          (e) => (encoding.writeVarUint(e, 0), encoding.writeVarUint(e, 2), encoding.writeVarUint8Array(e, payload)),
        ),
      )
      expect(f.step1(payload)).toEqual(
        lib0Frame(
          name,
          (e) => (encoding.writeVarUint(e, 0), encoding.writeVarUint(e, 0), encoding.writeVarUint8Array(e, payload)),
        ),
      )
      expect(f.awareness(payload)).toEqual(
        lib0Frame(name, (e) => (encoding.writeVarUint(e, 1), encoding.writeVarUint8Array(e, payload))),
      )
      expect(f.auth('tök')).toEqual(
        lib0Frame(
          name,
          (e) => (encoding.writeVarUint(e, 2), encoding.writeVarUint(e, 0), encoding.writeVarString(e, 'tök')),
        ),
      )
      expect(f.pong()).toEqual(lib0Frame(name, (e) => encoding.writeVarUint(e, 10)))
    })
    it(`${dialect}: reads a server's sync, awareness, auth and other messages`, () => {
      expect(f.decode(f.step2(payload))).toEqual({ kind: 'step2', payload })
      expect(
        f.decode(
          lib0Frame(
            name,
            (e) => (encoding.writeVarUint(e, 4), encoding.writeVarUint(e, 0), encoding.writeVarUint8Array(e, payload)),
          ),
        ),
      ).toEqual({ kind: 'step1', payload })
      expect(f.decode(f.awareness(payload))).toEqual({ kind: 'awareness', payload })
      expect(
        f.decode(
          lib0Frame(
            name,
            (e) => (encoding.writeVarUint(e, 2), encoding.writeVarUint(e, 0), encoding.writeVarString(e, 'no')),
          ),
        ),
      ).toEqual({ kind: 'auth', sub: 0, text: 'no' })
      expect(f.decode(lib0Frame(name, (e) => (encoding.writeVarUint(e, 2), encoding.writeVarUint(e, 2))))).toEqual({
        kind: 'auth',
        sub: 2,
        text: '',
      })
      expect(f.decode(lib0Frame(name, (e) => encoding.writeVarUint(e, 8)))).toEqual({ kind: 'other', type: 8 })
      expect(() => f.decode(f.update(payload).subarray(0, 40))).toThrow()
    })
  }
  it('skips the name without reading it as text', () => {
    expect(new Framing('hocuspocus', 'a').decode(new Uint8Array([...encodeName('b'), 9]))).toEqual({ kind: 'ping' })
  })
})

describe("a client's awareness state", () => {
  it('round-trips, and a state that is not JSON reads as null', () => {
    const one = encodeAwarenessState(7, 3, { user: { name: 'ann' } })
    expect(one).toEqual(
      lib0Frame(
        null,
        (e) => (
          encoding.writeVarUint(e, 1),
          encoding.writeVarUint(e, 7),
          encoding.writeVarUint(e, 3),
          encoding.writeVarString(e, '{"user":{"name":"ann"}}')
        ),
      ),
    )
    const two = lib0Frame(
      null,
      (e) => (
        encoding.writeVarUint(e, 2),
        encoding.writeVarUint(e, 7),
        encoding.writeVarUint(e, 3),
        encoding.writeVarString(e, 'null'),
        encoding.writeVarUint(e, 8),
        encoding.writeVarUint(e, 1),
        encoding.writeVarString(e, '{')
      ),
    )
    expect(decodeAwareness(two)).toEqual([
      { clientId: 7, clock: 3, state: null },
      { clientId: 8, clock: 1, state: null },
    ])
    expect(decodeAwareness(one)).toEqual([{ clientId: 7, clock: 3, state: { user: { name: 'ann' } } }])
  })
})
