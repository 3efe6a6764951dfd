import { describe, expect, it } from 'vitest'
import { exactJsonText, isExactNumber, mayHoldInexactNumber, parseExactNumbers } from './exact-json.js'

describe('exact JSON numbers', () => {
  it('keeps the digits of numbers a double would round, and parses every other value as JSON.parse does', () => {
    const text =
      '{"big": 9007199254740993, "neg": -12345678901234567890, "dec": 0.12345678901234567891, "safe": 9007199254740991, "f": 12.5, "e": 1e3, "s": "9007199254740993", "a": [1, 18446744073709551615], "o": {"n": null, "t": true}}'
    expect(mayHoldInexactNumber(text)).toBe(true)
    const v = parseExactNumbers(text) as Record<string, any>
    expect(isExactNumber(v.big) && v.big.toString()).toBe('9007199254740993')
    expect(isExactNumber(v.neg) && v.neg.toString()).toBe('-12345678901234567890')
    expect(isExactNumber(v.dec) && v.dec.toString()).toBe('0.12345678901234567891')
    expect(v.a[1].toString()).toBe('18446744073709551615')
    expect({ safe: v.safe, f: v.f, e: v.e, s: v.s, a0: v.a[0], o: v.o }).toEqual({
      safe: 9007199254740991,
      f: 12.5,
      e: 1000,
      s: '9007199254740993',
      a0: 1,
      o: { n: null, t: true },
    })
  })

  it('takes a repeated key\'s last value and a "__proto__" key as an own property, as JSON.parse does', () => {
    const text = '{"k": 1, "k": 2, "__proto__": {"x": 9007199254740993}}'
    const v = parseExactNumbers(text) as Record<string, any>
    expect(v.k).toBe(2)
    expect(Object.keys(v)).toEqual(['k', '__proto__'])
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
  })

  it('writes exact numbers back as JSON numbers, and as strings where plain JSON.stringify writes them', () => {
    const v = parseExactNumbers('{"n": 12345678901234567890, "m": [9007199254740993, 1.5], "s": "x"}')
    expect(exactJsonText(v)).toBe('{"n":12345678901234567890,"m":[9007199254740993,1.5],"s":"x"}')
    expect(JSON.stringify(v)).toBe('{"n":"12345678901234567890","m":["9007199254740993",1.5],"s":"x"}')
    expect(exactJsonText({ plain: [1, 'two', null] })).toBe('{"plain":[1,"two",null]}')
  })

  it('re-parses only text with 16 digits in a row, a point allowed between them', () => {
    expect(mayHoldInexactNumber('{"n": 900719925474099, "s": "abc", "d": 1.5}')).toBe(false)
    expect(mayHoldInexactNumber('{"d": 1234567.123456789}')).toBe(true)
    expect((parseExactNumbers('{"d": 1234567.123456789012}') as any).d.toString()).toBe('1234567.123456789012')
  })
})
