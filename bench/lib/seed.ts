// Seed documents for the storm and cold scenarios: a Y.Text grown by inserts of ~1 KB at
// pseudo-random positions (many items, like an edited document, not one long string), and a
// per-room marker entry the client looks for to know its sync carried the whole document.
import * as encoding from 'lib0/encoding'
import * as Y from 'yjs'

/** Deterministic PRNG (mulberry32) so every run builds the same documents. */
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua'.split(
    ' ',
  )

/** One Yjs update of about `bytes` bytes. Built once and shared by every seeded room. */
export function seedUpdate(bytes: number, seed = 1): Uint8Array {
  const rand = rng(seed)
  const doc = new Y.Doc()
  const text = doc.getText('body')
  const chunk = 1024
  const n = Math.max(1, Math.round(bytes / chunk))
  for (let i = 0; i < n; i++) {
    let s = ''
    while (s.length < chunk) s += WORDS[Math.floor(rand() * WORDS.length)]! + ' '
    const pos = Math.floor(rand() * (text.length + 1))
    text.insert(pos, s.slice(0, chunk))
  }
  const u = Y.encodeStateAsUpdate(doc)
  doc.destroy()
  return u
}

export function markerText(room: string): string {
  return `bench-seed-marker:${room}:end`
}

/**
 * A small update adding the room's marker (from its own client, so the seed is never re-applied
 * here), and the state vector of seed + marker, which keeps the server's confirmation tiny.
 */
export function markerUpdate(
  seedStateVector: Map<number, number>,
  room: string,
): { update: Uint8Array; stateVector: Uint8Array } {
  const doc = new Y.Doc()
  doc.getMap('bench-seed').set('marker', markerText(room))
  const update = Y.encodeStateAsUpdate(doc)
  const sv = new Map(seedStateVector)
  for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc))) sv.set(client, clock)
  doc.destroy()
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, sv.size)
  for (const [client, clock] of sv) {
    encoding.writeVarUint(e, client)
    encoding.writeVarUint(e, clock)
  }
  return { update, stateVector: encoding.toUint8Array(e) }
}

export function seedStateVector(seed: Uint8Array): Map<number, number> {
  return Y.decodeStateVector(Y.encodeStateVectorFromUpdate(seed))
}
