import * as encoding from 'lib0/encoding'
import { describe, expect, it } from 'vitest'
import * as syncProtocol from 'y-protocols/sync'
import * as Y from 'yjs'
import {
  decodeHocusFrame,
  encodeAuthenticated,
  encodeHocusPermissionDenied,
  encodeName,
  encodeStateless,
  encodeSyncStatus,
  encodeTokenRequest,
  withName,
} from './hocuspocus.js'
import { ProtocolError, encodeSyncStep1, encodeUpdate } from './messages.js'

/** Builds a frame as the provider's message classes do, with lib0's encoder. */
function providerFrame(name: string, write: (e: encoding.Encoder) => void): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, name)
  write(e)
  return encoding.toUint8Array(e)
}

const NAME = 'acme/doc-1'
const prefix = encodeName(NAME)

describe('decodeHocusFrame', () => {
  it('reads the 4.x Auth frame with its trailing version, and the 2.x one without', () => {
    const v4 = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 2)
      encoding.writeVarUint(e, 0)
      encoding.writeVarString(e, 'tok.en')
      encoding.writeVarString(e, '4.8.0')
    })
    const v2 = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 2)
      encoding.writeVarUint(e, 0)
      encoding.writeVarString(e, 'tok.en')
    })
    for (const f of [v4, v2])
      expect(decodeHocusFrame(f)).toEqual({ kind: 'message', name: NAME, message: { type: 'auth', token: 'tok.en' } })
  })

  it('reads sync step 1, step 2, update, and SyncReply as sync', () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'hi')
    const step1 = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 0)
      syncProtocol.writeSyncStep1(e, doc)
    })
    expect(decodeHocusFrame(step1)).toEqual({
      kind: 'message',
      name: NAME,
      message: { type: 'sync-step1', stateVector: Y.encodeStateVector(doc) },
    })
    const update = Y.encodeStateAsUpdate(doc)
    const upd = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 0)
      syncProtocol.writeUpdate(e, update)
    })
    expect(decodeHocusFrame(upd)).toEqual({ kind: 'message', name: NAME, message: { type: 'sync-update', update } })
    const reply = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 4)
      syncProtocol.writeSyncStep2(e, doc)
    })
    expect(decodeHocusFrame(reply)).toMatchObject({ message: { type: 'sync-step2' } })
  })

  it('reads awareness, query-awareness, stateless and close', () => {
    const aw = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 1)
      encoding.writeVarUint8Array(e, new Uint8Array([1, 2, 3]))
    })
    expect(decodeHocusFrame(aw)).toEqual({
      kind: 'message',
      name: NAME,
      message: { type: 'awareness', update: new Uint8Array([1, 2, 3]) },
    })
    expect(decodeHocusFrame(providerFrame(NAME, (e) => encoding.writeVarUint(e, 3)))).toMatchObject({
      message: { type: 'query-awareness' },
    })
    const st = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 5)
      encoding.writeVarString(e, '{"x":1}')
    })
    expect(decodeHocusFrame(st)).toMatchObject({ message: { type: 'stateless', payload: '{"x":1}' } })
    expect(decodeHocusFrame(providerFrame(NAME, (e) => encoding.writeVarUint(e, 7)))).toMatchObject({
      message: { type: 'close' },
    })
  })

  it('takes the one-byte Ping and Pong as keepalive', () => {
    expect(decodeHocusFrame(new Uint8Array([9]))).toEqual({ kind: 'keepalive' })
    expect(decodeHocusFrame(new Uint8Array([10]))).toEqual({ kind: 'keepalive' })
  })

  it('refuses a bad body for its document only, naming why', () => {
    const unknown = providerFrame(NAME, (e) => encoding.writeVarUint(e, 6))
    expect(decodeHocusFrame(unknown)).toEqual({ kind: 'bad', name: NAME, reason: 'unknown message type 6' })
    const truncated = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 0)
      encoding.writeVarUint(e, 2)
      encoding.writeVarUint(e, 50)
    })
    expect(decodeHocusFrame(truncated)).toEqual({ kind: 'bad', name: NAME, reason: 'length past end of message' })
    const trailing = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 3)
      encoding.writeVarUint(e, 0)
    })
    expect(decodeHocusFrame(trailing)).toEqual({ kind: 'bad', name: NAME, reason: 'trailing bytes after message' })
    const serverAuth = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 2)
      encoding.writeVarUint(e, 2)
      encoding.writeVarString(e, 'read-write')
    })
    expect(decodeHocusFrame(serverAuth)).toEqual({ kind: 'bad', name: NAME, reason: 'unexpected auth message 2' })
  })

  it('throws when the name cannot be read', () => {
    expect(() => decodeHocusFrame(new Uint8Array([]))).toThrow(ProtocolError)
    expect(() => decodeHocusFrame(new Uint8Array([20, 65]))).toThrow(ProtocolError)
    expect(() => decodeHocusFrame(new Uint8Array([2, 0xff, 0xfe]))).toThrow('invalid utf-8 string')
  })
})

describe('server frames', () => {
  it('encodes the name as a varString', () => {
    expect([...encodeName('a/b')]).toEqual([3, 97, 47, 98])
    const long = 'o/' + 'd'.repeat(200)
    expect([...encodeName(long).subarray(0, 2)]).toEqual([(202 & 0x7f) | 0x80, 1])
  })

  it('Authenticated, PermissionDenied and the token request as the provider reads them', () => {
    const p = encodeName('a/b')
    expect([...encodeAuthenticated(p, 'readonly')]).toEqual([3, 97, 47, 98, 2, 2, 8, ...Buffer.from('readonly')])
    expect([...encodeHocusPermissionDenied(p, 'no')]).toEqual([3, 97, 47, 98, 2, 1, 2, 110, 111])
    expect([...encodeTokenRequest(p)]).toEqual([3, 97, 47, 98, 2, 0])
  })

  it('SyncStatus and Stateless', () => {
    const p = encodeName('a/b')
    expect([...encodeSyncStatus(p, true)]).toEqual([3, 97, 47, 98, 8, 1])
    expect([...encodeSyncStatus(p, false)]).toEqual([3, 97, 47, 98, 8, 0])
    expect([...encodeStateless(p, 'hi')]).toEqual([3, 97, 47, 98, 5, 2, 104, 105])
  })

  it("a y-websocket sync frame behind the name is the provider's Sync message", () => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, 'x')
    const expected = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 0)
      syncProtocol.writeSyncStep1(e, doc)
    })
    expect(withName(prefix, encodeSyncStep1(Y.encodeStateVector(doc)))).toEqual(expected)
    const update = Y.encodeStateAsUpdate(doc)
    const expectedUpdate = providerFrame(NAME, (e) => {
      encoding.writeVarUint(e, 0)
      syncProtocol.writeUpdate(e, update)
    })
    expect(withName(prefix, encodeUpdate(update))).toEqual(expectedUpdate)
  })
})
