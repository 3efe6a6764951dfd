import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { MemoryDocStore } from '../storage/memory.js'
import { readMissed } from './resync.js'

const entry = (text: string, doc: Y.Doc) => {
  const before = Y.encodeStateVector(doc)
  doc.getText('t').insert(doc.getText('t').length, text)
  return { user: 'u', at: 1, update: Y.encodeStateAsUpdate(doc, before) }
}

async function storeWith(n: number): Promise<{ store: MemoryDocStore; doc: Y.Doc }> {
  const store = new MemoryDocStore()
  const doc = new Y.Doc()
  for (let i = 1; i <= n; i++) await store.append('o/d/main', i, [entry(String(i % 10), doc)])
  return { store, doc }
}

const textOf = (updates: Uint8Array[], base?: Y.Doc) => {
  const d = base ?? new Y.Doc()
  for (const u of updates) Y.applyUpdate(d, u)
  return d.getText('t').toString()
}

describe('readMissed', () => {
  it('returns exactly the updates after the applied seqs, and the head', async () => {
    const { store } = await storeWith(6)
    const behind = new Y.Doc()
    for await (const u of store.readLog('o/d/main', 1, 3)) Y.applyUpdate(behind, u.update)
    const m = await readMissed(store, 'o/d/main', 4)
    expect(m.head).toBe(6)
    expect(m.updates).toHaveLength(3)
    expect(textOf(m.updates, behind)).toBe('123456')
  })

  it('returns nothing new for a room that is up to date, and a new document from seq 1', async () => {
    const { store } = await storeWith(3)
    expect(await readMissed(store, 'o/d/main', 4)).toEqual({ updates: [], head: 3 })
    expect(await readMissed(store, 'o/none/main', 1)).toEqual({ updates: [], head: 0 })
    const all = await readMissed(store, 'o/d/main', 1)
    expect(all.head).toBe(3)
    expect(textOf(all.updates)).toBe('123')
  })

  it('falls back to the snapshot when the log it needs was pruned', async () => {
    const { store, doc } = await storeWith(8)
    await store.writeSnapshot('o/d/main', { seq: 6, at: 1, state: Y.encodeStateAsUpdate(doc, undefined) })
    await store.prune('o/d/main', 6)
    const m = await readMissed(store, 'o/d/main', 3)
    expect(m.head).toBe(8)
    expect(textOf(m.updates)).toBe('12345678')
    // Still served from the log when the entry before fromSeq survived.
    const tail = await readMissed(store, 'o/d/main', 8)
    expect(tail).toMatchObject({ head: 8 })
    expect(tail.updates).toHaveLength(1)
  })
})
