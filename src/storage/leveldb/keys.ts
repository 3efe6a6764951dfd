// Key layout of the documents sublevel (`docs-v1`; a new layout gets a new sublevel name).
//   s!{docId}              snapshot: varUint seq, varUint at, state bytes
//   u!{docId}!{seq:12 hex} update:   varString user, varUint at, update bytes; with attributions:
//                                    0x00, varString user, varUint at, varString attrs JSON, update bytes
//                                    (an old value starts with its user's length; an empty user is written marked)
//   m!{docId}!{name}       side record of another module (history), opaque bytes
// '!' sorts below every character a docId may hold, so `u!{docId}!` ranges never overlap.
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import { varUintSize, writeVarUint } from '@tandem/protocol/messages'
import type { Attributes } from '../doc-store.js'

export const SUBLEVEL = 'docs-v1'
/** Marks written with appends (AppendWrite.marks): their own sublevel, keys chosen by the marking module. */
export const MARKS_SUBLEVEL = 'marks-v1'
const SEQ_DIGITS = 12

export const snapshotKey = (docId: string) => `s!${docId}`
export const updateKey = (docId: string, seq: number) => `u!${docId}!${seq.toString(16).padStart(SEQ_DIGITS, '0')}`
export const metaKey = (docId: string, name: string) => `m!${docId}!${name}`
export const updatePrefix = (docId: string) => `u!${docId}!`
export const metaPrefix = (docId: string) => `m!${docId}!`
/** Upper bound of a prefix range: '~' sorts above hex digits and every docId character. */
export const prefixEnd = (prefix: string) => prefix + '~'

export function seqOfUpdateKey(key: string): number {
  return parseInt(key.slice(key.length - SEQ_DIGITS), 16)
}

export function docIdOfKey(key: string): string {
  if (key.startsWith('s!')) return key.slice(2)
  return key.slice(2, key.length - SEQ_DIGITS - 1)
}

const WITH_ATTRS = 0

/** Bytes of an update's value (layout above); `json` is its attributions' JSON when marked. */
function updateValueSize(user: number, at: number, json: number, update: Uint8Array, marked: boolean): number {
  const head = (marked ? 1 + varUintSize(json) + json : 0) + varUintSize(user) + user + varUintSize(at)
  return head + update.length
}

/**
 * Encodes the values of a write cycle's updates into one buffer, each value a view of it: one
 * allocation per cycle instead of an encoder's two per update (LevelDB copies what it is given).
 */
export function encodeUpdateValues(entries: readonly UpdateValueParts[]): Uint8Array[] {
  const users: Uint8Array[] = []
  const jsons: (Uint8Array | null)[] = []
  let total = 0
  for (const e of entries) {
    // an empty user would start with 0x00 too: it takes the marked form (attrs JSON null)
    const marked = e.attrs !== undefined || e.user === ''
    const user = utf8.encode(e.user)
    const json = marked ? utf8.encode(JSON.stringify(e.attrs ?? null)) : null
    users.push(user)
    jsons.push(json)
    total += updateValueSize(user.length, e.at, json?.length ?? 0, e.update, marked)
  }
  const out = new Uint8Array(total)
  const values: Uint8Array[] = []
  let pos = 0
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    const start = pos
    const json = jsons[i]!
    if (json) out[pos++] = WITH_ATTRS
    pos = writeBytes(out, writeVarUint(out, pos, users[i]!.length), users[i]!)
    pos = writeVarUint(out, pos, e.at)
    if (json) pos = writeBytes(out, writeVarUint(out, pos, json.length), json)
    pos = writeBytes(out, pos, e.update)
    values.push(out.subarray(start, pos))
  }
  return values
}

export interface UpdateValueParts {
  user: string
  at: number
  update: Uint8Array
  attrs?: Attributes | undefined
}

const utf8 = new TextEncoder()

function writeBytes(out: Uint8Array, pos: number, bytes: Uint8Array): number {
  out.set(bytes, pos)
  return pos + bytes.length
}

export function decodeUpdateValue(value: Uint8Array): {
  user: string
  at: number
  update: Uint8Array
  attrs?: Attributes
} {
  const d = decoding.createDecoder(value)
  const withAttrs = value[0] === WITH_ATTRS
  if (withAttrs) decoding.readVarUint(d)
  const user = decoding.readVarString(d)
  const at = decoding.readVarUint(d)
  if (!withAttrs) return { user, at, update: decoding.readTailAsUint8Array(d) }
  const attrs = JSON.parse(decoding.readVarString(d)) as Attributes | null
  const update = decoding.readTailAsUint8Array(d)
  return attrs ? { user, at, update, attrs } : { user, at, update }
}

export function encodeSnapshotValue(seq: number, at: number, state: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, seq)
  encoding.writeVarUint(e, at)
  encoding.writeUint8Array(e, state)
  return encoding.toUint8Array(e)
}

export function decodeSnapshotValue(value: Uint8Array): { seq: number; at: number; state: Uint8Array } {
  const d = decoding.createDecoder(value)
  const seq = decoding.readVarUint(d)
  const at = decoding.readVarUint(d)
  return { seq, at, state: decoding.readTailAsUint8Array(d) }
}
