// The Hocuspocus provider's wire protocol (@hocuspocus/provider 2.x to 4.x), decoded strictly. Pure:
// bytes in, typed messages out. Every frame starts with the document name (varString), then a
// message type (varUint); Sync, Awareness and QueryAwareness then carry exactly the y-websocket
// body, so a server frame is the name followed by the y-websocket frame the room already encoded.
// A frame whose name cannot be read is a ProtocolError (the socket closes 4400); a frame with a
// readable name and a bad body is `bad` for that document only.
import {
  HOCUS_AUTH_AUTHENTICATED as AUTH_AUTHENTICATED,
  HOCUS_AUTH_PERMISSION_DENIED as AUTH_PERMISSION_DENIED,
  HOCUS_AUTH_TOKEN as AUTH_TOKEN,
  MSG_AUTH,
  MSG_AWARENESS,
  MSG_CLOSE,
  MSG_PING,
  MSG_PONG,
  MSG_QUERY_AWARENESS,
  MSG_STATELESS,
  MSG_SYNC,
  MSG_SYNC_REPLY,
  MSG_SYNC_STATUS,
} from './message-types.js'
import { ProtocolError, readSyncMessage, Reader, varUintSize, writeVarUint } from './messages.js'

export type HocusScope = 'read-write' | 'readonly'

export type HocusMessage =
  | { type: 'auth'; token: string }
  | { type: 'sync-step1'; stateVector: Uint8Array }
  | { type: 'sync-step2'; update: Uint8Array }
  | { type: 'sync-update'; update: Uint8Array }
  | { type: 'awareness'; update: Uint8Array }
  | { type: 'query-awareness' }
  | { type: 'stateless'; payload: string }
  | { type: 'close' }

export type HocusFrame =
  | { kind: 'keepalive' }
  | { kind: 'message'; name: string; message: HocusMessage }
  /** the name was read; the rest is not a message this server takes */
  | { kind: 'bad'; name: string; reason: string }

/** Decodes one client frame; throws ProtocolError when not even the document name can be read. */
export function decodeHocusFrame(buf: Uint8Array): HocusFrame {
  if (buf.length === 1 && (buf[0] === MSG_PING || buf[0] === MSG_PONG)) return { kind: 'keepalive' }
  const r = new Reader(buf)
  const name = r.string()
  try {
    return { kind: 'message', name, message: body(r) }
  } catch (err) {
    if (!(err instanceof ProtocolError)) throw err
    return { kind: 'bad', name, reason: err.message }
  }
}

function body(r: Reader): HocusMessage {
  const type = r.varUint()
  let msg: HocusMessage
  switch (type) {
    case MSG_SYNC:
    case MSG_SYNC_REPLY:
      msg = readSyncMessage(r)
      break
    case MSG_AWARENESS:
      msg = { type: 'awareness', update: r.bytes() }
      break
    case MSG_AUTH: {
      const sub = r.varUint()
      if (sub !== AUTH_TOKEN) throw new ProtocolError(`unexpected auth message ${sub}`)
      msg = { type: 'auth', token: r.string() }
      // Provider 4.x appends its version; 2.x and 3.x end after the token.
      if (r.pos < r.buf.length) r.string()
      break
    }
    case MSG_QUERY_AWARENESS:
      msg = { type: 'query-awareness' }
      break
    case MSG_STATELESS:
      msg = { type: 'stateless', payload: r.string() }
      break
    case MSG_CLOSE:
      msg = { type: 'close' }
      break
    default:
      throw new ProtocolError(`unknown message type ${type}`)
  }
  r.end()
  return msg
}

// ---- encoding -------------------------------------------------------------------------------

const utf8 = new TextEncoder()

/** The varString a document's every frame starts with; encoded once per document and socket. */
export function encodeName(name: string): Uint8Array {
  const bytes = utf8.encode(name)
  const out = new Uint8Array(varUintSize(bytes.length) + bytes.length)
  out.set(bytes, writeVarUint(out, 0, bytes.length))
  return out
}

/** `prefix` (an encoded name) followed by a y-websocket frame: Sync, Awareness, QueryAwareness. */
export function withName(prefix: Uint8Array, frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(prefix.length + frame.length)
  out.set(prefix)
  out.set(frame, prefix.length)
  return out
}

/** prefix, type, then varUints and an optional varString, in one allocation. */
function frame(prefix: Uint8Array, nums: number[], text?: string): Uint8Array {
  const str = text === undefined ? null : utf8.encode(text)
  let size = prefix.length
  for (const n of nums) size += varUintSize(n)
  if (str) size += varUintSize(str.length) + str.length
  const out = new Uint8Array(size)
  out.set(prefix)
  let pos = prefix.length
  for (const n of nums) pos = writeVarUint(out, pos, n)
  if (str) out.set(str, writeVarUint(out, pos, str.length))
  return out
}

export const encodeAuthenticated = (prefix: Uint8Array, scope: HocusScope) =>
  frame(prefix, [MSG_AUTH, AUTH_AUTHENTICATED], scope)
export const encodeHocusPermissionDenied = (prefix: Uint8Array, reason: string) =>
  frame(prefix, [MSG_AUTH, AUTH_PERMISSION_DENIED], reason)
/** Asks the provider for a fresh token (it calls its token function and sends Auth again). */
export const encodeTokenRequest = (prefix: Uint8Array) => frame(prefix, [MSG_AUTH, AUTH_TOKEN])
/** `saved`: the update is durable (the provider then counts one unsynced change less). */
export const encodeSyncStatus = (prefix: Uint8Array, saved: boolean) => frame(prefix, [MSG_SYNC_STATUS, saved ? 1 : 0])
export const encodeStateless = (prefix: Uint8Array, payload: string) => frame(prefix, [MSG_STATELESS], payload)
