import { describe, expect, it } from 'vitest'
import { tooDeepAt as scan } from './json-depth.js'

const tooDeepAt = (text: string, max: number) => scan(new TextEncoder().encode(text), max)

describe('tooDeepAt', () => {
  it('finds the first bracket past the limit, arrays and objects alike', () => {
    expect(tooDeepAt('[[[]]]', 3)).toBe(-1)
    expect(tooDeepAt('[[[[]]]]', 3)).toBe(3)
    expect(tooDeepAt('{"a":{"b":[{}]}}', 3)).toBe(11)
    expect(tooDeepAt('{"a":{"b":[{}]}}', 4)).toBe(-1)
  })

  it('counts depth, not brackets: siblings do not add up', () => {
    expect(tooDeepAt('[[],[],[[]],{"a":[]}]', 3)).toBe(-1)
    expect(tooDeepAt('[[],[],[[]],{"a":[[]]}]', 3)).toBe(18)
  })

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(tooDeepAt('["[[[[", "\\"[[[[", "\\\\"]', 1)).toBe(-1)
    expect(tooDeepAt('["\\\\", [[]]]', 2)).toBe(8)
  })

  it('indexes in bytes, past multi-byte characters', () => {
    expect(tooDeepAt('{"é[":[[', 2)).toBe(8)
    expect(tooDeepAt('{"é[":[[', 3)).toBe(-1)
  })

  it('handles 10^6 levels without recursion', () => {
    const deep = '['.repeat(1e6) + ']'.repeat(1e6)
    expect(tooDeepAt(deep, 128)).toBe(128)
    expect(tooDeepAt(deep, 1e6)).toBe(-1)
  })
})
