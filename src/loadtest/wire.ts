// The two framings the load client speaks: y-websocket (Tandem, the reference server) and Hocuspocus,
// which prefixes every message with the document name and asks for an auth message first.
// Pure: bytes in, bytes out.
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import {
  HOCUS_AUTH_TOKEN,
  MSG_AUTH,
  MSG_AWARENESS,
  MSG_PING,
  MSG_PONG,
  MSG_SYNC,
  MSG_SYNC_REPLY,
  MSG_SYNC_STATUS,
  SYNC_STEP1,
  SYNC_STEP2,
  SYNC_UPDATE,
} from '../protocol/message-types.js'

export type Dialect = 'yws' | 'hocuspocus'

export type Incoming =
  | { kind: 'step1'; payload: Uint8Array }
  | { kind: 'step2'; payload: Uint8Array }
  | { kind: 'update'; payload: Uint8Array }
  | { kind: 'awareness'; payload: Uint8Array }
  | { kind: 'auth'; sub: number; text: string }
  | { kind: 'ping' }
  | { kind: 'other'; type: number }

export class Framing {
  constructor(
    readonly dialect: Dialect,
    /** Hocuspocus document name; ignored by the y-websocket dialect (the room is in the URL). */
    readonly docName: string,
  ) {}

  private start(type: number): encoding.Encoder {
    const e = encoding.createEncoder()
    if (this.dialect === 'hocuspocus') encoding.writeVarString(e, this.docName)
    encoding.writeVarUint(e, type)
    return e
  }

  private sync(sub: number, payload: Uint8Array): Uint8Array {
    const e = this.start(MSG_SYNC)
    encoding.writeVarUint(e, sub)
    encoding.writeVarUint8Array(e, payload)
    return encoding.toUint8Array(e)
  }

  step1(stateVector: Uint8Array): Uint8Array {
    return this.sync(SYNC_STEP1, stateVector)
  }

  step2(update: Uint8Array): Uint8Array {
    return this.sync(SYNC_STEP2, update)
  }

  update(update: Uint8Array): Uint8Array {
    return this.sync(SYNC_UPDATE, update)
  }

  awareness(update: Uint8Array): Uint8Array {
    const e = this.start(MSG_AWARENESS)
    encoding.writeVarUint8Array(e, update)
    return encoding.toUint8Array(e)
  }

  /** Hocuspocus only: the token message that opens the document on this socket. */
  auth(token: string): Uint8Array {
    const e = this.start(MSG_AUTH)
    encoding.writeVarUint(e, HOCUS_AUTH_TOKEN)
    encoding.writeVarString(e, token)
    return encoding.toUint8Array(e)
  }

  pong(): Uint8Array {
    return encoding.toUint8Array(this.start(MSG_PONG))
  }

  decode(buf: Uint8Array): Incoming {
    const d = decoding.createDecoder(buf)
    if (this.dialect === 'hocuspocus') decoding.readVarString(d)
    const type = decoding.readVarUint(d)
    switch (type) {
      case MSG_SYNC:
      case MSG_SYNC_REPLY: {
        const sub = decoding.readVarUint(d)
        const payload = decoding.readVarUint8Array(d)
        if (sub === SYNC_STEP1) return { kind: 'step1', payload }
        if (sub === SYNC_STEP2) return { kind: 'step2', payload }
        return { kind: 'update', payload }
      }
      case MSG_AWARENESS:
        return { kind: 'awareness', payload: decoding.readVarUint8Array(d) }
      case MSG_AUTH: {
        const sub = decoding.readVarUint(d)
        const text = decoding.hasContent(d) ? decoding.readVarString(d) : ''
        return { kind: 'auth', sub, text }
      }
      case MSG_PING:
        return { kind: 'ping' }
      case MSG_SYNC_STATUS:
      default:
        return { kind: 'other', type }
    }
  }
}

/** An awareness update carrying one client's state, encoded as y-protocols does. */
export function encodeAwarenessState(clientId: number, clock: number, state: unknown): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, 1)
  encoding.writeVarUint(e, clientId)
  encoding.writeVarUint(e, clock)
  encoding.writeVarString(e, JSON.stringify(state))
  return encoding.toUint8Array(e)
}

export interface AwarenessEntry {
  clientId: number
  clock: number
  state: unknown
}

export function decodeAwareness(update: Uint8Array): AwarenessEntry[] {
  const d = decoding.createDecoder(update)
  const n = decoding.readVarUint(d)
  const out: AwarenessEntry[] = []
  for (let i = 0; i < n; i++) {
    const clientId = decoding.readVarUint(d)
    const clock = decoding.readVarUint(d)
    const json = decoding.readVarString(d)
    let state: unknown = null
    try {
      state = JSON.parse(json)
    } catch {
      state = null
    }
    out.push({ clientId, clock, state })
  }
  return out
}
