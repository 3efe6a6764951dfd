import { describe, expect, it } from 'vitest'
import { boundedJson, echoInput } from './echo.js'

describe('echoInput', () => {
  it('echoes small inputs unchanged', () => {
    const v = { a: [1, 'two', null, { b: true }] }
    expect(echoInput(v, 100)).toBe(v)
    expect(echoInput('short', 10)).toBe('short')
    expect(echoInput(42, 1)).toBe(42)
    expect(echoInput(null, 1)).toBeNull()
  })

  it('cuts a long string or a large value to a prefix of its JSON text', () => {
    expect(echoInput('x'.repeat(50), 10)).toBe('xxxxxxxxxx...')
    expect(echoInput([1, 2, 3, 4, 5, 6, 7, 8], 8)).toBe('[1,2,3,4...')
    expect(echoInput({ key: 'v'.repeat(20) }, 10)).toBe('{"key":"vv...')
  })

  it('never splits a surrogate pair', () => {
    expect(echoInput('ab😀cd', 3)).toBe('ab...')
  })

  it('writes what JSON.stringify writes while under budget', () => {
    const v = { b: [1, undefined, 'q"\\'], a: { x: undefined, y: -0.5, z: Infinity }, 2: false }
    expect(boundedJson(v, 1000)).toBe(JSON.stringify(v))
  })

  it('stops early on values too deep or too large for JSON.stringify', () => {
    let deep: unknown[] = []
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(() => JSON.stringify(deep)).toThrow(RangeError)
    expect(echoInput(deep, 1000)).toBe('['.repeat(1000) + '...')
    const wide = Array.from({ length: 1_000_000 }, (_, i) => i)
    expect(boundedJson(wide, 100).length).toBeLessThan(120)
  })
})
