// Both framings as a client speaks them (the load tester's raw client): what a client sends, encoded,
// and what a server sends, decoded. y-websocket carries the room in the URL; Hocuspocus puts the
// document name before every message and opens a document with an auth message.
// Every frame is written in one allocation and a received name is skipped, not decoded: this is
// the load generator's hot path. Decoding is lenient (trailing bytes allowed), as a provider's is.
// Pure: bytes in, bytes out.
import {
  HOCUS_AUTH_TOKEN,
  MSG_AUTH,
  MSG_AWARENESS,
  MSG_PING,
  MSG_PONG,
  MSG_SYNC,
  MSG_SYNC_REPLY,
  SYNC_STEP1,
  SYNC_STEP2,
  SYNC_UPDATE,
} from './message-types.js'
import { encodeName } from './hocuspocus.js'
import { Reader, varUintSize, writeVarUint } from './messages.js'

export type Dialect = 'yws' | 'hocuspocus'

/** A server's message as a client reads it. */
export type Incoming =
  | { kind: 'step1'; payload: Uint8Array }
  | { kind: 'step2'; payload: Uint8Array }
  | { kind: 'update'; payload: Uint8Array }
  | { kind: 'awareness'; payload: Uint8Array }
  | { kind: 'auth'; sub: number; text: string }
  | { kind: 'ping' }
  | { kind: 'other'; type: number }

const NO_NAME = new Uint8Array(0)
const utf8 = new TextEncoder()

export class Framing {
  /** the encoded document name every Hocuspocus frame starts with; empty for y-websocket */
  private readonly prefix: Uint8Array

  constructor(
    readonly dialect: Dialect,
    /** Hocuspocus document name; ignored by the y-websocket dialect (the room is in the URL). */
    readonly docName: string,
  ) {
    this.prefix = dialect === 'hocuspocus' ? encodeName(docName) : NO_NAME
  }

  /** prefix, type, an optional sub-type, then an optional varUint8Array: one allocation. */
  private frame(type: number, sub: number | null, payload: Uint8Array | null): Uint8Array {
    let size = this.prefix.length + varUintSize(type)
    if (sub !== null) size += varUintSize(sub)
    if (payload) size += varUintSize(payload.length) + payload.length
    const out = new Uint8Array(size)
    out.set(this.prefix)
    let pos = writeVarUint(out, this.prefix.length, type)
    if (sub !== null) pos = writeVarUint(out, pos, sub)
    if (payload) out.set(payload, writeVarUint(out, pos, payload.length))
    return out
  }

  step1(stateVector: Uint8Array): Uint8Array {
    return this.frame(MSG_SYNC, SYNC_STEP1, stateVector)
  }

  step2(update: Uint8Array): Uint8Array {
    return this.frame(MSG_SYNC, SYNC_STEP2, update)
  }

  update(update: Uint8Array): Uint8Array {
    return this.frame(MSG_SYNC, SYNC_UPDATE, update)
  }

  awareness(update: Uint8Array): Uint8Array {
    return this.frame(MSG_AWARENESS, null, update)
  }

  /** Hocuspocus only: the token message that opens the document on this socket. */
  auth(token: string): Uint8Array {
    return this.frame(MSG_AUTH, HOCUS_AUTH_TOKEN, utf8.encode(token))
  }

  pong(): Uint8Array {
    return this.frame(MSG_PONG, null, null)
  }

  /** Throws (ProtocolError) on a frame too short for what its header says. */
  decode(buf: Uint8Array): Incoming {
    const r = new Reader(buf)
    if (this.dialect === 'hocuspocus') r.bytes() // the document name: this client has one
    const type = r.varUint()
    switch (type) {
      case MSG_SYNC:
      case MSG_SYNC_REPLY: {
        const sub = r.varUint()
        const payload = r.bytes()
        if (sub === SYNC_STEP1) return { kind: 'step1', payload }
        if (sub === SYNC_STEP2) return { kind: 'step2', payload }
        return { kind: 'update', payload }
      }
      case MSG_AWARENESS:
        return { kind: 'awareness', payload: r.bytes() }
      case MSG_AUTH: {
        const sub = r.varUint()
        const text = r.pos < buf.length ? r.string() : ''
        return { kind: 'auth', sub, text }
      }
      case MSG_PING:
        return { kind: 'ping' }
      default:
        return { kind: 'other', type }
    }
  }
}
