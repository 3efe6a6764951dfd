import { describe, expect, it } from 'vitest'
import { pythonJsonError } from './python-json.js'

// Expected values are what CPython 3.12's json.loads raises (JSONDecodeError.msg, .pos).
describe('pythonJsonError', () => {
  it.each([
    ['{"a": }', 6, 'Expecting value'],
    ['', 0, 'Expecting value'],
    ['  ', 2, 'Expecting value'],
    ['tru', 0, 'Expecting value'],
    ['{"a" 1}', 5, "Expecting ':' delimiter"],
    ['{"a": 1 "b": 2}', 8, "Expecting ',' delimiter"],
    ['[1 2]', 3, "Expecting ',' delimiter"],
    ["{'a': 1}", 1, 'Expecting property name enclosed in double quotes'],
    ['{"a": 1,}', 8, 'Expecting property name enclosed in double quotes'],
    ['[1,]', 3, 'Expecting value'],
    ['[1, 2] x', 7, 'Extra data'],
    ['01', 1, 'Extra data'],
    ['"abc', 0, 'Unterminated string starting at'],
    ['{"a": "b\\qc"}', 8, 'Invalid \\escape'],
    ['"\\u12x4"', 2, 'Invalid \\uXXXX escape'],
    ['{"a": "x\ny"}', 8, 'Invalid control character at'],
    ['{"é": ]', 6, 'Expecting value'],
    ['{"😀": ]', 6, 'Expecting value'],
  ])('%j fails at %i with %j', (text, pos, msg) => {
    expect(pythonJsonError(text, 128)).toEqual({ pos, msg })
  })

  it('finds nothing wrong in valid JSON', () => {
    expect(pythonJsonError('{"a": [1, -2.5e3, true, null, "x\\n"]}', 128)).toBeNull()
  })

  it('stops at the first container past maxDepth, in code points, without recursing further', () => {
    expect(pythonJsonError('[[1], {"a": [2]}]', 3)).toBeNull()
    expect(pythonJsonError('{"😀": [[[]]]}', 3)).toEqual({ pos: 8, msg: 'Nesting deeper than 3 levels' })
    expect(pythonJsonError('['.repeat(100_000), 128)).toEqual({ pos: 128, msg: 'Nesting deeper than 128 levels' })
    // a syntax error before the deep part is reported first
    expect(pythonJsonError('[1 2, ' + '['.repeat(100_000), 128)).toEqual({ pos: 3, msg: "Expecting ',' delimiter" })
  })
})
