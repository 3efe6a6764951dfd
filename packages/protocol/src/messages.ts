// The y-websocket wire protocol as the stock WebsocketProvider speaks it, decoded strictly.
// Pure: bytes in, typed messages out; no Yjs document, no I/O. Anything that does not parse
// exactly (bad varint, unknown type, length past the end, trailing bytes) is a ProtocolError.

import {
  AUTH_DENIED,
  AUTH_GRANTED,
  AUTH_REFRESH,
  MSG_AUTH,
  MSG_AWARENESS,
  MSG_QUERY_AWARENESS,
  MSG_SYNC,
  SYNC_STEP1,
  SYNC_STEP2,
  SYNC_UPDATE,
} from './message-types.js'

export type ClientMessage =
  | { type: 'sync-step1'; stateVector: Uint8Array }
  | { type: 'sync-step2'; update: Uint8Array }
  | { type: 'sync-update'; update: Uint8Array }
  | { type: 'awareness'; update: Uint8Array }
  | { type: 'auth-refresh'; token: string }
  | { type: 'query-awareness' }

export class ProtocolError extends Error {}

// One decoder for every string: fatal and never streaming, so it keeps no state between calls.
const utf8In = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true })

/** A strict reader of lib0's varUint / varUint8Array / varString (shared with the Hocuspocus framing). */
export class Reader {
  pos = 0
  constructor(readonly buf: Uint8Array) {}

  varUint(): number {
    let value = 0
    let mult = 1
    for (let i = 0; i < 8; i++) {
      if (this.pos >= this.buf.length) throw new ProtocolError('truncated varint')
      const byte = this.buf[this.pos++]!
      value += (byte & 0x7f) * mult
      if (byte < 0x80) {
        if (!Number.isSafeInteger(value)) break
        return value
      }
      mult *= 128
    }
    throw new ProtocolError('varint too long')
  }

  bytes(): Uint8Array {
    const len = this.varUint()
    if (len > this.buf.length - this.pos) throw new ProtocolError('length past end of message')
    const out = this.buf.subarray(this.pos, this.pos + len)
    this.pos += len
    return out
  }

  string(): string {
    try {
      return utf8In.decode(this.bytes())
    } catch (err) {
      if (err instanceof ProtocolError) throw err
      throw new ProtocolError('invalid utf-8 string')
    }
  }

  end(): void {
    if (this.pos !== this.buf.length) throw new ProtocolError('trailing bytes after message')
  }
}

/** A y-protocols sync message after its type: step 1, step 2 or update (both framings share it). */
export function readSyncMessage(
  r: Reader,
): Extract<ClientMessage, { type: 'sync-step1' | 'sync-step2' | 'sync-update' }> {
  const sub = r.varUint()
  const payload = r.bytes()
  if (sub === SYNC_STEP1) return { type: 'sync-step1', stateVector: payload }
  if (sub === SYNC_STEP2) return { type: 'sync-step2', update: payload }
  if (sub === SYNC_UPDATE) return { type: 'sync-update', update: payload }
  throw new ProtocolError(`unknown sync message ${sub}`)
}

export function decodeMessage(buf: Uint8Array): ClientMessage {
  const r = new Reader(buf)
  const type = r.varUint()
  let msg: ClientMessage
  switch (type) {
    case MSG_SYNC:
      msg = readSyncMessage(r)
      break
    case MSG_AWARENESS:
      msg = { type: 'awareness', update: r.bytes() }
      break
    case MSG_AUTH: {
      const sub = r.varUint()
      if (sub !== AUTH_REFRESH) throw new ProtocolError(`unexpected auth message ${sub}`)
      msg = { type: 'auth-refresh', token: r.string() }
      break
    }
    case MSG_QUERY_AWARENESS:
      msg = { type: 'query-awareness' }
      break
    default:
      throw new ProtocolError(`unknown message type ${type}`)
  }
  r.end()
  return msg
}

// ---- encoding -------------------------------------------------------------------------------

export function varUintSize(n: number): number {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    size++
  }
  return size
}

export function writeVarUint(out: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80
    n = Math.floor(n / 128)
  }
  out[pos++] = n
  return pos
}

/** [type, sub?, varUint8Array payload] in one allocation. */
function frame(type: number, sub: number | null, payload: Uint8Array): Uint8Array {
  const size = 1 + (sub === null ? 0 : varUintSize(sub)) + varUintSize(payload.length) + payload.length
  const out = new Uint8Array(size)
  let pos = writeVarUint(out, 0, type)
  if (sub !== null) pos = writeVarUint(out, pos, sub)
  pos = writeVarUint(out, pos, payload.length)
  out.set(payload, pos)
  return out
}

/**
 * The bytes of a sync step 2 (or update) message before its payload: sent ahead of a large payload
 * as the first part of one message, so the payload (a whole document) is never copied into a frame.
 */
export function syncHead(kind: 'sync-step2' | 'sync-update', payloadLength: number): Uint8Array {
  const sub = kind === 'sync-step2' ? SYNC_STEP2 : SYNC_UPDATE
  const out = new Uint8Array(2 + varUintSize(payloadLength))
  writeVarUint(out, writeVarUint(out, writeVarUint(out, 0, MSG_SYNC), sub), payloadLength)
  return out
}

const utf8 = new TextEncoder()

export const encodeSyncStep1 = (stateVector: Uint8Array) => frame(MSG_SYNC, SYNC_STEP1, stateVector)
export const encodeSyncStep2 = (update: Uint8Array) => frame(MSG_SYNC, SYNC_STEP2, update)
export const encodeUpdate = (update: Uint8Array) => frame(MSG_SYNC, SYNC_UPDATE, update)
export const encodeAwareness = (update: Uint8Array) => frame(MSG_AWARENESS, null, update)
export const encodePermissionDenied = (reason: string) => frame(MSG_AUTH, AUTH_DENIED, utf8.encode(reason))
export const encodeAuthGranted = (access: string) => frame(MSG_AUTH, AUTH_GRANTED, utf8.encode(access))
export const encodeAuthRefresh = (token: string) => frame(MSG_AUTH, AUTH_REFRESH, utf8.encode(token))
