// Documents for the memory and large scenarios (issue 24), built deterministically from a seed:
// - `realisticDoc`: three writers typing, fixing typos and deleting in one Y.Text, synced with each
//   other every few edits (so their runs interleave and split each other's items), plus a Y.Map of
//   settings overwritten now and then; grown until its encoded state reaches a target size.
// - `plainTextDoc`: the same amount of text appended paragraph by paragraph by one writer (few items).
// - `largeDocBatches`: a large text, mostly appended with some edits and deletions, returned as the
//   updates a writer would send (merged into ~1 MB batches) plus its encoded state.
import * as Y from 'yjs'
import { rng } from './seed.js'

const WORDS = (
  'the a of to and in is it that for on with as was at by this be from or are an have not which but were one all ' +
  'their there been has more when will would who can if about into time than some could them other then these so ' +
  'document server memory budget room update socket client state vector encoded sync merge text paragraph review'
).split(' ')

function word(rand: () => number): string {
  return WORDS[Math.floor(rand() * WORDS.length)]!
}

function sentence(rand: () => number, words: number): string {
  let s = ''
  for (let i = 0; i < words; i++) s += (i ? ' ' : '') + word(rand)
  return s.charAt(0).toUpperCase() + s.slice(1) + '. '
}

/** Exchanges everything between the docs (as providers on one server would). */
function syncAll(docs: Y.Doc[]): void {
  for (const a of docs) {
    for (const b of docs) {
      if (a !== b) Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)))
    }
  }
}

export interface BuiltDoc {
  /** the document's encoded state (Y.encodeStateAsUpdate) */
  update: Uint8Array
  /** text length in characters, items in the struct store (a feel for the shape) */
  chars: number
  items: number
}

function countItems(doc: Y.Doc): number {
  let n = 0
  for (const structs of doc.store.clients.values()) n += structs.length
  return n
}

/**
 * Three writers (client ids 101, 202, 303) editing one text: runs of typed words at a cursor that
 * mostly moves a little and sometimes jumps, typos fixed with backspace, selections deleted, and a
 * map of 24 settings overwritten now and then. Synced with each other every 1–6 edits.
 */
export function realisticDoc(targetBytes: number, seed = 24): BuiltDoc {
  const rand = rng(seed)
  const docs = [101, 202, 303].map((id) => {
    const d = new Y.Doc({ gc: true })
    d.clientID = id
    return d
  })
  const cursors = [0, 0, 0]
  let untilSync = 1
  let step = 0
  for (;;) {
    const w = Math.floor(rand() * 3)
    const doc = docs[w]!
    const text = doc.getText('body')
    const len = text.length
    let at = Math.min(cursors[w]!, len)
    if (rand() < 0.15) at = Math.floor(rand() * (len + 1))
    const r = rand()
    if (r < 0.62 || len < 200) {
      // A run of typing, word by word, now and then a typo removed by backspace.
      const words = 1 + Math.floor(rand() * 12)
      for (let i = 0; i < words; i++) {
        const piece = (i === 0 && rand() < 0.1 ? '\n' : '') + word(rand) + ' '
        text.insert(at, piece)
        at += piece.length
        if (rand() < 0.12) {
          text.insert(at, 'x')
          text.delete(at, 1)
        }
      }
    } else if (r < 0.78) {
      // Backspace a few characters.
      const n = Math.min(at, 1 + Math.floor(rand() * 8))
      text.delete(at - n, n)
      at -= n
    } else if (r < 0.9) {
      // Select and delete a range (a phrase to a few sentences).
      const n = Math.min(len - at, 5 + Math.floor(rand() * 160))
      if (n > 0) text.delete(at, n)
    } else {
      // A setting changed: overwritten entries stay as deleted items.
      const map = doc.getMap('meta')
      const k = `k${Math.floor(rand() * 24)}`
      map.set(
        k,
        rand() < 0.5 ? sentence(rand, 1 + Math.floor(rand() * 6)) : { v: Math.floor(rand() * 1e6), by: w, step },
      )
    }
    cursors[w] = at
    step++
    if (--untilSync <= 0) {
      syncAll(docs)
      untilSync = 1 + Math.floor(rand() * 6)
      if (step % 60 < 6 && Y.encodeStateAsUpdate(docs[0]!).length >= targetBytes) break
    }
  }
  syncAll(docs)
  const update = Y.encodeStateAsUpdate(docs[0]!)
  const out = { update, chars: docs[0]!.getText('body').length, items: countItems(docs[0]!) }
  for (const d of docs) d.destroy()
  return out
}

/** One writer appending paragraphs of 300–900 characters until the encoded state reaches the target. */
export function plainTextDoc(targetBytes: number, seed = 25): BuiltDoc {
  const rand = rng(seed)
  const doc = new Y.Doc()
  doc.clientID = 404
  const text = doc.getText('body')
  let bytes = 0
  while (bytes < targetBytes) {
    let p = ''
    const want = 300 + Math.floor(rand() * 600)
    while (p.length < want) p += sentence(rand, 4 + Math.floor(rand() * 14))
    p += '\n'
    text.insert(text.length, p)
    bytes += p.length
  }
  const update = Y.encodeStateAsUpdate(doc)
  const out = { update, chars: text.length, items: countItems(doc) }
  doc.destroy()
  return out
}

const SYNC = Symbol('sync')

export interface LargeDoc extends BuiltDoc {
  /** the writer's updates, merged into batches of about `batchBytes` */
  batches: Uint8Array[]
}

/**
 * A large text: one writer appends 4 KB chunks; every `editEvery` chunks (8: 32 KB) a second writer (synced) inserts a
 * few words or deletes a range somewhere in what exists. Grown until `targetBytes` of text.
 */
export function largeDocBatches(targetBytes: number, batchBytes = 1 << 20, editEvery = 8, seed = 50): LargeDoc {
  const rand = rng(seed)
  const a = new Y.Doc()
  a.clientID = 505
  const b = new Y.Doc()
  b.clientID = 606
  const batches: Uint8Array[] = []
  let pending: Uint8Array[] = []
  let pendingBytes = 0
  const flush = (): void => {
    if (!pending.length) return
    batches.push(pending.length === 1 ? pending[0]! : Y.mergeUpdates(pending))
    pending = []
    pendingBytes = 0
  }
  const collect = (u: Uint8Array, origin: unknown): void => {
    if (origin === SYNC) return // the other writer's update arriving: sent once, by its author
    pending.push(u)
    pendingBytes += u.length
    if (pendingBytes >= batchBytes) flush()
  }
  a.on('update', collect)
  b.on('update', collect)
  const ta = a.getText('body')
  const tb = b.getText('body')
  // A pool of prose reused for the chunks (building 50 MB word by word would dominate the run).
  let pool = ''
  while (pool.length < 64 * 1024) pool += sentence(rand, 4 + Math.floor(rand() * 14)) + (rand() < 0.1 ? '\n' : '')
  const chunk = 4096
  let chunks = 0
  while (ta.length < targetBytes) {
    const off = Math.floor(rand() * (pool.length - chunk))
    ta.insert(ta.length, pool.slice(off, off + chunk))
    if (++chunks % editEvery === 0) {
      Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)), SYNC)
      const len = tb.length
      const at = Math.floor(rand() * len)
      if (rand() < 0.6) tb.insert(at, sentence(rand, 2 + Math.floor(rand() * 10)))
      else tb.delete(at, Math.min(len - at, 1 + Math.floor(rand() * 400)))
      Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)), SYNC)
    }
  }
  flush()
  const update = Y.encodeStateAsUpdate(a)
  const out = { update, batches, chars: ta.length, items: countItems(a) }
  a.destroy()
  b.destroy()
  return out
}
