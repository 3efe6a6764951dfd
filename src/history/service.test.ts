import * as Y from 'yjs'
import { describe, expect, it } from 'vitest'
import { MemoryDocStore } from '../storage/memory.js'
import { HistoryService, RECORD_NAME } from './service.js'

const DAY = 24 * 60 * 60 * 1000
const config = { historyRetentionDays: 30, historyCheckpointEvery: 1000, historyCacheDocs: 1 }

async function typed(store: MemoryDocStore, docId: string, days: number[]): Promise<void> {
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (const _ of days) doc.getText('t').insert(0, 'x')
  await store.append(docId, 1, updates.map((update, i) => ({ user: 'ann', at: days[i]! * DAY, update })))
  await store.writeSnapshot(docId, { seq: days.length, at: days[days.length - 1]! * DAY, state: Y.encodeStateAsUpdate(doc) })
}

const seqs = async (store: MemoryDocStore, docId: string) => {
  const out: number[] = []
  for await (const e of store.readLog(docId)) out.push(e.seq)
  return out
}

describe('HistoryService', () => {
  it('a sweep folds every document past the window and prunes its log, once the record is written', async () => {
    const store = new MemoryDocStore()
    await typed(store, 'o/a/main', [1, 2, 50])
    await typed(store, 'o/b/main', [45, 46])
    const service = new HistoryService({ store, config, now: () => 60 * DAY })
    expect(await service.sweep()).toBe(2)
    expect(await seqs(store, 'o/a/main')).toEqual([3])
    expect(await seqs(store, 'o/b/main')).toEqual([1, 2])
    expect(await store.readMeta('o/a/main', RECORD_NAME)).not.toBeNull()
    // a fresh service (a restart) reads the folded history back, with only the retained entry
    const again = new HistoryService({ store, config, now: () => 60 * DAY })
    expect(await again.use('o/a/main', (h) => [h.base.seq, h.index.size, h.doc.getText('t').toString()])).toEqual([2, 1, 'xxx'])
  })
})
