import { describe, expect, it } from 'vitest'
import { RemoteAwareness } from './remote-awareness.js'

describe('RemoteAwareness', () => {
  it("hands back a node's clients per document, once, and forgets removed ones", () => {
    const r = new RemoteAwareness()
    r.note('a', 'o/d/main', { added: [1, 2], updated: [], removed: [] })
    r.note('a', 'o/e/main', { added: [3], updated: [], removed: [] })
    r.note('b', 'o/d/main', { added: [4], updated: [], removed: [] })
    r.note('a', 'o/d/main', { added: [], updated: [5], removed: [2] })
    expect(r.nodes().sort()).toEqual(['a', 'b'])
    expect([r.owner('o/d/main', 1), r.owner('o/d/main', 4), r.owner('o/d/main', 2), r.owner('o/e/main', 4)]).toEqual([
      'a',
      'b',
      undefined,
      undefined,
    ])
    const a = r.takeNode('a')
    expect(Object.fromEntries([...a].map(([d, ids]) => [d, ids.sort()]))).toEqual({
      'o/d/main': [1, 5],
      'o/e/main': [3],
    })
    expect(r.takeNode('a').size).toBe(0)
    r.forgetDoc('o/d/main')
    expect(r.nodes()).toEqual([])
  })
})
