// Base tokens against a real (in-memory) document store: a token opens only for the document and
// storage epoch that sealed it; erasing the document starts a new epoch.
import { describe, expect, it } from 'vitest'
import { MemoryDocStore } from '../storage/memory.js'
import { baseSealOf } from './base-token.js'

describe('base tokens', () => {
  it('a sealed base opens to the same base for its document, and for no other document or seq', async () => {
    const store = new MemoryDocStore()
    const a = await baseSealOf(store, 'o/a/main')
    const token = a.seal({ seq: 12, own: [15, 19] })
    expect(token).toMatch(/^12~15~19\.[A-Za-z0-9_-]{16}$/)
    expect((await baseSealOf(store, 'o/a/main')).open(token)).toEqual({ seq: 12, own: [15, 19] })
    expect(() => a.open(token.replace('~19.', '~18.'))).toThrow(/not given out for this document/)
    const draft = await baseSealOf(store, 'o/a/draft')
    expect(() => draft.open(token)).toThrow(/not given out for this document/)
  })

  it('erasing the document makes its earlier bases fail: the key goes with it', async () => {
    const store = new MemoryDocStore()
    const token = (await baseSealOf(store, 'o/a/main')).seal({ seq: 3, own: [] })
    await store.eraseDocument('o/a/main')
    const again = await baseSealOf(store, 'o/a/main')
    expect(() => again.open(token)).toThrow(/from before the document was erased/)
    expect(again.open(again.seal({ seq: 3, own: [] }))).toEqual({ seq: 3, own: [] })
  })
})
