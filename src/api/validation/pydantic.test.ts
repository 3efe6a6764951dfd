import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { check, checkParams, expectedList, type PydanticError } from './pydantic.js'

const run = (schema: z.ZodType, input: unknown) => {
  const errors: PydanticError[] = []
  const value = check(schema, input, ['body'], errors)
  return { value, errors }
}

describe('pydantic-shaped validation', () => {
  it('lists expected values the way pydantic does', () => {
    expect(expectedList(['a'])).toBe("'a'")
    expect(expectedList(['a', 'b'])).toBe("'a' or 'b'")
    expect(expectedList(['a', 'b', 'c'])).toBe("'a', 'b' or 'c'")
  })

  it.each([
    ['true', true],
    ['YES', true],
    ['on', true],
    ['1', true],
    ['f', false],
    ['Off', false],
    [0, false],
    [true, true],
  ])('accepts %j as the boolean %j', (input, expected) => {
    expect(run(z.boolean(), input)).toEqual({ value: expected, errors: [] })
  })

  it('tells bool_parsing (unreadable string or number) from bool_type (other JSON)', () => {
    expect(run(z.boolean(), 2).errors[0]!.type).toBe('bool_parsing')
    expect(run(z.boolean(), 'maybe').errors[0]!.type).toBe('bool_parsing')
    expect(run(z.boolean(), [true]).errors[0]).toEqual({
      type: 'bool_type',
      loc: ['body'],
      msg: 'Input should be a valid boolean',
      input: [true],
    })
  })

  it('parses integers from strings with surrounding spaces and trailing zero decimals only', () => {
    expect(run(z.int(), ' 42 ').value).toBe(42)
    expect(run(z.int(), '42.000').value).toBe(42)
    expect(run(z.int(), '4.2').errors[0]!.type).toBe('int_parsing')
    expect(run(z.int(), 4.2).errors[0]!.type).toBe('int_from_float')
    expect(run(z.int(), null).errors[0]).toEqual({
      type: 'int_type',
      loc: ['body'],
      msg: 'Input should be a valid integer',
      input: null,
    })
  })

  it('reports a missing object field with the object as input, and a missing parameter with null', () => {
    const body = { other: 1 }
    expect(run(z.object({ tool_id: z.string() }), body).errors).toEqual([
      { type: 'missing', loc: ['body', 'tool_id'], msg: 'Field required', input: body },
    ])
    const errors: PydanticError[] = []
    checkParams(z.object({ asset_id: z.string() }), {}, 'query', errors)
    expect(errors).toEqual([{ type: 'missing', loc: ['query', 'asset_id'], msg: 'Field required', input: null }])
  })

  it('fills defaults, keeps nulls of nullable fields, drops unknown fields', () => {
    const schema = z.object({ a: z.enum(['x', 'y']).default('x'), b: z.string().nullable().optional() })
    expect(run(schema, { b: null, extra: 1 })).toEqual({ value: { a: 'x', b: null }, errors: [] })
  })

  it('words string length errors with pydantic plurals', () => {
    expect(run(z.string().min(1), '').errors[0]).toEqual({
      type: 'string_too_short',
      loc: ['body'],
      msg: 'String should have at least 1 character',
      input: '',
      ctx: { min_length: 1 },
    })
    expect(run(z.string().max(2), 'abc').errors[0]!.msg).toBe('String should have at most 2 characters')
  })
})
