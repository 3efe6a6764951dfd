// An awareness update as entries that keep their bytes as received. y-protocols' layout: varUint
// count, then per client varUint clientID, varUint clock, varString JSON state ("null": removed).
// A room relays and snapshots by concatenating entries, so no state is parsed or stringified per
// delivery. Reading takes ids, clocks and spans only: stock providers send back every state they
// are sent (an echo per observer per frame), and those echoes, not newer than what the room
// holds, are dropped unparsed; an entry the room takes is checked (checkState) once, on receipt.
// A client's side (the load tester, tests) writes its own state and reads everyone's, parsed.
// Pure: bytes in, entries out.
import { ProtocolError, Reader, varUintSize, writeVarUint } from './messages.js'

export interface AwarenessEntry {
  clientId: number
  clock: number
  /** the state is JSON null: the client is gone */
  removed: boolean
  /** the entry as on the wire (clientID, clock, state): a view into its frame until kept */
  bytes: Uint8Array
  /** where the state's JSON starts in `bytes` */
  stateAt: number
}

/** A state longer than the bound (bytes of JSON): refused whole, like a malformed update. */
export class StateTooLarge extends ProtocolError {}

const utf8 = new TextDecoder('utf-8', { fatal: true })
const NULL_STATE = new Uint8Array([4, 0x6e, 0x75, 0x6c, 0x6c]) // varString "null"

/**
 * Reads the entries of `update` (ids, clocks, state spans), or throws (ProtocolError) before
 * returning any: a truncated or malformed update, or a state over `maxStateBytes`.
 */
export function readAwarenessEntries(update: Uint8Array, maxStateBytes = Infinity): AwarenessEntry[] {
  const r = new Reader(update)
  const count = r.varUint()
  // every entry takes at least 3 bytes: a count past that is a lie, not a reason to loop
  if (count * 3 > update.length) throw new ProtocolError('awareness count past end of message')
  const out: AwarenessEntry[] = []
  for (let i = 0; i < count; i++) {
    const start = r.pos
    const clientId = r.varUint()
    const clock = r.varUint()
    const state = r.bytes()
    if (state.length > maxStateBytes) throw new StateTooLarge(`awareness state over ${maxStateBytes} bytes`)
    const removed =
      state.length === 4 && state[0] === 0x6e && state[1] === 0x75 && state[2] === 0x6c && state[3] === 0x6c
    out.push({ clientId, clock, removed, bytes: update.subarray(start, r.pos), stateAt: r.pos - state.length - start })
  }
  r.end()
  return out
}

/** Checks that the entry's state is JSON (a spaced `null` counts as removal); throws ProtocolError. */
export function checkState(e: AwarenessEntry): void {
  let parsed: unknown
  try {
    parsed = JSON.parse(utf8.decode(e.bytes.subarray(e.stateAt)))
  } catch {
    throw new ProtocolError('awareness state is not JSON')
  }
  if (parsed === null) e.removed = true
}

/** The entry with its own copy of its bytes (a frame's buffer is not kept). */
export function kept(e: AwarenessEntry): AwarenessEntry {
  return { ...e, bytes: e.bytes.slice() }
}

/** The entry that removes a client: the last clock seen of it, state null. */
export function removalEntry(clientId: number, clock: number): AwarenessEntry {
  const out = new Uint8Array(varUintSize(clientId) + varUintSize(clock) + NULL_STATE.length)
  const pos = writeVarUint(out, writeVarUint(out, 0, clientId), clock)
  out.set(NULL_STATE, pos)
  return { clientId, clock, removed: true, bytes: out, stateAt: pos + 1 }
}

/** An awareness update of `count` entries (each entry's bytes as they are), or null when there are none. */
export function joinEntries(entries: Iterable<Uint8Array>, count: number): Uint8Array | null {
  if (count === 0) return null
  let size = varUintSize(count)
  const parts: Uint8Array[] = []
  for (const e of entries) {
    parts.push(e)
    size += e.length
  }
  const out = new Uint8Array(size)
  let pos = writeVarUint(out, 0, count)
  for (const p of parts) {
    out.set(p, pos)
    pos += p.length
  }
  return out
}

/** A client's state as a client reads it: parsed (null when removed, or not JSON). */
export interface AwarenessState {
  clientId: number
  clock: number
  state: unknown
}

const utf8Out = new TextEncoder()

/** An awareness update carrying one client's state, encoded as y-protocols does. */
export function encodeAwarenessState(clientId: number, clock: number, state: unknown): Uint8Array {
  const json = utf8Out.encode(JSON.stringify(state))
  const out = new Uint8Array(1 + varUintSize(clientId) + varUintSize(clock) + varUintSize(json.length) + json.length)
  const pos = writeVarUint(out, writeVarUint(out, writeVarUint(out, 0, 1), clientId), clock)
  out.set(json, writeVarUint(out, pos, json.length))
  return out
}

/** Every state of an awareness update, parsed; throws (ProtocolError) on a truncated one. */
export function decodeAwareness(update: Uint8Array): AwarenessState[] {
  const r = new Reader(update)
  const count = r.varUint()
  const out: AwarenessState[] = []
  for (let i = 0; i < count; i++) {
    const clientId = r.varUint()
    const clock = r.varUint()
    const json = r.string()
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
