import * as encoding from 'lib0/encoding'
import { describe, expect, it } from 'vitest'
import * as syncProtocol from 'y-protocols/sync'
import * as Y from 'yjs'
import {
  ProtocolError,
  decodeMessage,
  encodeAuthRefresh,
  encodeAwareness,
  encodePermissionDenied,
  encodeSyncStep1,
  encodeSyncStep2,
  encodeUpdate,
  syncHead,
} from './messages.js'

function docWithText(text: string): Y.Doc {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, text)
  return doc
}

describe('protocol messages', () => {
  it('encodes sync messages byte for byte as y-protocols does', () => {
    const doc = docWithText('hello')
    const e1 = encoding.createEncoder()
    encoding.writeVarUint(e1, 0)
    syncProtocol.writeSyncStep1(e1, doc)
    expect(encodeSyncStep1(Y.encodeStateVector(doc))).toEqual(encoding.toUint8Array(e1))

    const e2 = encoding.createEncoder()
    encoding.writeVarUint(e2, 0)
    syncProtocol.writeSyncStep2(e2, doc)
    expect(encodeSyncStep2(Y.encodeStateAsUpdate(doc))).toEqual(encoding.toUint8Array(e2))

    const update = Y.encodeStateAsUpdate(doc)
    const e3 = encoding.createEncoder()
    encoding.writeVarUint(e3, 0)
    syncProtocol.writeUpdate(e3, update)
    expect(encodeUpdate(update)).toEqual(encoding.toUint8Array(e3))
  })

  it('encodes multi-byte lengths (payloads over 127 and 16383 bytes)', () => {
    for (const size of [127, 128, 16383, 16384, 300_000]) {
      const payload = new Uint8Array(size).fill(7)
      const e = encoding.createEncoder()
      encoding.writeVarUint(e, 1)
      encoding.writeVarUint8Array(e, payload)
      expect(encodeAwareness(payload)).toEqual(encoding.toUint8Array(e))
    }
  })

  it('decodes what it encodes', () => {
    const update = Y.encodeStateAsUpdate(docWithText('x'))
    expect(decodeMessage(encodeUpdate(update))).toEqual({ type: 'sync-update', update })
    expect(decodeMessage(encodeSyncStep2(update))).toEqual({ type: 'sync-step2', update })
    expect(decodeMessage(encodeSyncStep1(Uint8Array.of(0)))).toEqual({
      type: 'sync-step1',
      stateVector: Uint8Array.of(0),
    })
    expect(decodeMessage(encodeAuthRefresh('abc.def.ghi'))).toEqual({ type: 'auth-refresh', token: 'abc.def.ghi' })
    expect(decodeMessage(Uint8Array.of(3))).toEqual({ type: 'query-awareness' })
  })

  it('permission denied is read by y-protocols as a denial with its reason', () => {
    const bytes = encodePermissionDenied('read-only')
    expect(Array.from(bytes.subarray(0, 3))).toEqual([2, 0, 9])
    expect(new TextDecoder().decode(bytes.subarray(3))).toBe('read-only')
  })

  it.each([
    ['empty frame', []],
    ['unknown message type', [9]],
    ['unknown sync sub-type', [0, 7, 0]],
    ['truncated varint', [0, 0x80]],
    ['length past the end', [0, 2, 5, 1, 2]],
    ['trailing bytes', [0, 2, 1, 0, 99]],
    ['overlong varint', [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]],
    ['auth denial sent by a client', [2, 0, 0]],
    ['invalid utf-8 token', [2, 1, 2, 0xff, 0xfe]],
  ])('rejects %s', (_name, bytes) => {
    expect(() => decodeMessage(Uint8Array.from(bytes))).toThrow(ProtocolError)
  })
})

describe('syncHead', () => {
  it('is exactly the bytes a sync step 2 or update frame puts before its payload, across varint sizes', () => {
    for (const n of [0, 1, 127, 128, 16_383, 16_384, 2_097_152]) {
      const payload = new Uint8Array(n).fill(7)
      for (const [kind, encode] of [
        ['sync-step2', encodeSyncStep2],
        ['sync-update', encodeUpdate],
      ] as const) {
        const head = syncHead(kind, n)
        const whole = new Uint8Array(head.length + n)
        whole.set(head)
        whole.set(payload, head.length)
        // byte for byte, by Buffer.compare: toEqual walks a 2 MiB array element by element (26 s
        // on a loaded 2-core machine, past the test timeout)
        expect(Buffer.compare(whole, encode(payload)), `${kind}, ${n} bytes`).toBe(0)
      }
    }
  })
})
