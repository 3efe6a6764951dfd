import { describe, expect, it } from 'vitest'
import { AppError } from '../../../../infra/errors.js'
import { QueryError } from './errors.js'
import { parseLogicParam } from './logic.js'
import { parseOrder } from './order.js'
import { parseReadParams } from './params.js'
import { parseSelect } from './select.js'

const read = (qs: string, maxLimit = 1000) => parseReadParams(new URLSearchParams(qs), { maxLimit, maxLogicDepth: 64 })
const logic = (param: string, value: string, maxDepth = 64) => parseLogicParam(param, value, maxDepth)
const failure = (fn: () => unknown): QueryError => {
  try {
    fn()
  } catch (e) {
    if (e instanceof QueryError) return e
    throw e
  }
  throw new Error('expected a QueryError')
}

describe('select', () => {
  it('reads a column list, a star and aliases', () => {
    expect(parseSelect('id, name ,*,label:title')).toEqual([
      { kind: 'column', column: 'id' },
      { kind: 'column', column: 'name' },
      { kind: 'star' },
      { kind: 'column', column: 'title', alias: 'label' },
    ])
  })
  it('reads quoted names with escaped quotes, commas and colons', () => {
    expect(parseSelect('"a,b":"c:d","say \\"hi\\""')).toEqual([
      { kind: 'column', column: 'c:d', alias: 'a,b' },
      { kind: 'column', column: 'say "hi"' },
    ])
  })
  it('refuses casts, embedding and empty items, naming select', () => {
    expect(failure(() => parseSelect('id::text')).param).toBe('select')
    expect(failure(() => parseSelect('client(id)')).reason).toMatch(/embedding/)
    expect(failure(() => parseSelect('id,,name')).reason).toMatch(/column name/)
    expect(failure(() => parseSelect('"open')).reason).toMatch(/unterminated/)
  })
})

describe('order', () => {
  it('reads directions and null placement in a comma list', () => {
    expect(parseOrder('a.desc,b.asc.nullslast,c,d.nullsfirst')).toEqual([
      { column: 'a', direction: 'desc' },
      { column: 'b', direction: 'asc', nulls: 'last' },
      { column: 'c' },
      { column: 'd', nulls: 'first' },
    ])
  })
  it('refuses unknown or misplaced modifiers', () => {
    expect(failure(() => parseOrder('a.up')).reason).toMatch(/"up"/)
    expect(failure(() => parseOrder('a.nullslast.desc')).param).toBe('order')
    expect(failure(() => parseOrder('a.desc.asc')).param).toBe('order')
  })
})

describe('filters', () => {
  it('reads every comparison operator with the raw value', () => {
    const q = read('a=eq.1&b=neq.x&c=gt.2&d=gte.3&e=lt.4&f=lte.5&g=eq.a.b,c)"')
    expect(q.where.map((c) => (c.kind === 'compare' ? [c.column, c.op, c.value] : null))).toEqual([
      ['a', 'eq', '1'],
      ['b', 'neq', 'x'],
      ['c', 'gt', '2'],
      ['d', 'gte', '3'],
      ['e', 'lt', '4'],
      ['f', 'lte', '5'],
      ['g', 'eq', 'a.b,c)"'],
    ])
  })
  it('turns * into % in like and ilike only', () => {
    const q = read('a=like.*ab*&b=ilike.A*&c=eq.*')
    expect(q.where.map((c) => (c.kind === 'compare' ? c.value : null))).toEqual(['%ab%', 'A%', '*'])
  })
  it('negates with not.', () => {
    expect(read('a=not.eq.1').where[0]).toMatchObject({ kind: 'compare', negate: true, op: 'eq', value: '1' })
    expect(read('a=not.in.(1,2)').where[0]).toMatchObject({ kind: 'in', negate: true, values: ['1', '2'] })
  })
  it('reads in-lists with quoted values and backslash escapes', () => {
    const q = read(`a=in.(1, 2,"x,y","q\\"q","b\\\\s",)`)
    expect(q.where[0]).toMatchObject({ kind: 'in', values: ['1', ' 2', 'x,y', 'q"q', 'b\\s', ''] })
    expect(read('a=in.()').where[0]).toMatchObject({ kind: 'in', values: [] })
  })
  it('refuses malformed in-lists', () => {
    expect(failure(() => read('a=in.1,2')).param).toBe('a')
    expect(failure(() => read('a=in.(1,2')).reason).toMatch(/close/)
    expect(failure(() => read('a=in.("x",y')).reason).toMatch(/close/)
    expect(failure(() => read('a=in.(1)junk')).reason).toMatch(/after the list/)
  })
  // PostgREST: a value is quoted only when its quotes close and a `,` or `)` follows at once;
  // any other `"` is an ordinary character (QuerySpec "accepts single double quotes as values").
  it('reads a quote that does not close, or is not followed by , or ), as a literal character', () => {
    const values = (v: string) => (read(`a=${encodeURIComponent(v)}`).where[0] as { values: string[] }).values
    expect(values('in.(")')).toEqual(['"'])
    expect(values('in.(Double"Quote"McGraw")')).toEqual(['Double"Quote"McGraw"'])
    expect(values('in.("x"y)')).toEqual(['"x"y'])
    expect(values('in.("a,b"c,d)')).toEqual(['"a', 'b"c', 'd'])
    expect(values('in.(1,")')).toEqual(['1', '"'])
    expect(values('in.("a\\")')).toEqual(['"a\\"'])
    expect(values('in.("ok",")')).toEqual(['ok', '"'])
    const t = logic('or', '(a.in.("),b.in.("x"y,"z"))')
    expect(t.kind === 'logic' && t.children.map((c) => (c.kind === 'in' ? c.values : null))).toEqual([
      ['"'],
      ['"x"y', 'z'],
    ])
  })
  // PostgREST: spaces after `(` are skipped, the others belong to the element they touch.
  it('keeps spaces inside in-list elements except those right after the opening parenthesis', () => {
    const values = (v: string) => (read(`a=${encodeURIComponent(v)}`).where[0] as { values: string[] }).values
    expect(values('in.( 1, 2 ,3 )')).toEqual(['1', ' 2 ', '3 '])
    expect(values('in. (1)  ')).toEqual(['1'])
    expect(values('in.( ,3)')).toEqual(['', '3'])
    expect(values('in.(    )')).toEqual([])
    expect(values('in.( "a" , "b")')).toEqual(['"a" ', ' "b"'])
  })
  it('reads is.null, not_null, true, false and unknown in any case', () => {
    const q = read('a=is.null&b=is.NOT_NULL&c=is.True&d=is.false&e=not.is.unknown')
    expect(q.where.map((c) => (c.kind === 'is' ? [c.value, c.negate] : null))).toEqual([
      ['null', false],
      ['not_null', false],
      ['true', false],
      ['false', false],
      ['unknown', true],
    ])
    expect(failure(() => read('a=is.nothing')).param).toBe('a')
  })
  it('ANDs repeated parameters', () => {
    const q = read('a=gt.1&a=lt.9&a=neq.5')
    expect(q.where).toHaveLength(3)
  })
  it('names the parameter of an unknown operator or a missing one', () => {
    const e = failure(() => read('price=contains.3'))
    expect(e.param).toBe('price')
    expect(e.reason).toMatch(/unknown operator "contains"/)
    expect(failure(() => read('price=5')).reason).toMatch(/<operator>\.<value>/)
    expect(e).toBeInstanceOf(AppError)
    expect(e.status).toBe(400)
  })
  it('ignores parameters with an empty value', () => {
    expect(read('a=&select=&order=').where).toEqual([])
  })
  it('reads a quoted column key', () => {
    expect(read('"odd.name"=eq.1').where[0]).toMatchObject({ column: 'odd.name' })
  })
})

describe('logic trees', () => {
  it('reads or/and with nesting and negation', () => {
    const t = logic('or', '(a.eq.1,and(b.gt.2,c.not.is.null),not.or(d.lt.0,e.like.x*))')
    expect(t).toEqual({
      kind: 'logic',
      param: 'or',
      negate: false,
      op: 'or',
      children: [
        { kind: 'compare', param: 'or', negate: false, column: 'a', op: 'eq', value: '1' },
        {
          kind: 'logic',
          param: 'or',
          negate: false,
          op: 'and',
          children: [
            { kind: 'compare', param: 'or', negate: false, column: 'b', op: 'gt', value: '2' },
            { kind: 'is', param: 'or', negate: true, column: 'c', value: 'null' },
          ],
        },
        {
          kind: 'logic',
          param: 'or',
          negate: true,
          op: 'or',
          children: [
            { kind: 'compare', param: 'or', negate: false, column: 'd', op: 'lt', value: '0' },
            { kind: 'compare', param: 'or', negate: false, column: 'e', op: 'like', value: 'x%' },
          ],
        },
      ],
    })
  })
  it('reads quoted values, pg arrays and in-lists inside a tree', () => {
    const t = logic('not.and', '(a.eq."x,y)",b.eq.{1,2},c.in.(1,"2,3"),d.eq."un"closed)')
    expect(t.negate).toBe(true)
    expect(t.kind === 'logic' && t.children).toEqual([
      { kind: 'compare', param: 'not.and', negate: false, column: 'a', op: 'eq', value: 'x,y)' },
      { kind: 'compare', param: 'not.and', negate: false, column: 'b', op: 'eq', value: '{1,2}' },
      { kind: 'in', param: 'not.and', negate: false, column: 'c', values: ['1', '2,3'] },
      { kind: 'compare', param: 'not.and', negate: false, column: 'd', op: 'eq', value: '"un"closed' },
    ])
  })
  // PostgREST's own "allows whitespace" case (AndOrParamsSpec): spaces around every `(`, `,` and
  // `)` of the tree are skipped; spaces that touch a value belong to it.
  it('allows spaces between and/or/not.and and their parenthesis, and around list items', () => {
    const t = logic('and', '( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )')
    expect(t).toEqual({
      kind: 'logic',
      param: 'and',
      negate: false,
      op: 'and',
      children: [
        {
          kind: 'logic',
          param: 'and',
          negate: false,
          op: 'and',
          children: [
            { kind: 'in', param: 'and', negate: false, column: 'id', values: ['1', ' 2', ' 3 '] },
            { kind: 'compare', param: 'and', negate: false, column: 'id', op: 'eq', value: '3 ' },
          ],
        },
        {
          kind: 'logic',
          param: 'and',
          negate: false,
          op: 'or',
          children: [
            { kind: 'compare', param: 'and', negate: false, column: 'id', op: 'eq', value: '2 ' },
            { kind: 'compare', param: 'and', negate: false, column: 'id', op: 'eq', value: '3 ' },
          ],
        },
      ],
    })
    const n = logic('or', ' (\tnot.and\t( a.eq. x ,b.is.null ),not.or (c.eq."q" ) ) ')
    expect(n.kind === 'logic' && n.children).toMatchObject([
      {
        kind: 'logic',
        negate: true,
        op: 'and',
        children: [
          { column: 'a', value: ' x ' },
          { column: 'b', value: 'null' },
        ],
      },
      { kind: 'logic', negate: true, op: 'or', children: [{ column: 'c', value: '"q" ' }] },
    ])
    // a space inside `not.and` or between a name and its dot is not a separator
    expect(failure(() => logic('or', '(not. and(a.eq.1))')).param).toBe('or')
    expect(failure(() => logic('or', '(a. eq.1)')).reason).toMatch(/unknown operator/)
    expect(failure(() => read('a=is. null')).param).toBe('a')
  })
  it('refuses empty, unbalanced or trailing input, naming the logic parameter', () => {
    expect(failure(() => logic('or', '()')).param).toBe('or')
    expect(failure(() => logic('or', '(a.eq.1')).param).toBe('or')
    expect(failure(() => logic('and', 'a.eq.1')).reason).toMatch(/'\('/)
    expect(failure(() => logic('or', '(a.eq.1))')).reason).toMatch(/after/)
    expect(failure(() => logic('or', '(a.xx.1)')).reason).toMatch(/unknown operator/)
    expect(failure(() => logic('or', '(xor(a.eq.1))')).param).toBe('or')
  })
  it("refuses trees nested deeper than the limit, counting the parameter's own list as level 1", () => {
    const tree = (n: number) => `(${'and('.repeat(n)}a.eq.1${')'.repeat(n)})`
    expect(logic('or', tree(3), 4).kind).toBe('logic')
    const e = failure(() => logic('or', tree(4), 4))
    expect(e.param).toBe('or')
    expect(e.reason).toMatch(/^logic trees nest at most 4 levels at position 14 /)
    expect(failure(() => logic('not.and', tree(100_000), 64)).reason).toMatch(/at most 64 levels/)
    expect(failure(() => read(`or=${tree(64)}`)).param).toBe('or')
  })
  it('ANDs repeated logic parameters with the other filters', () => {
    const q = read('or=(a.eq.1,a.eq.2)&or=(b.eq.1,b.eq.2)&not.and=(c.eq.1,d.eq.1)&e=eq.1')
    expect(q.where.map((c) => c.kind)).toEqual(['logic', 'logic', 'logic', 'compare'])
  })
})

describe('limit and offset', () => {
  it('defaults to 100 and 0', () => {
    expect(read('')).toMatchObject({ limit: 100, offset: 0 })
  })
  it('caps limit at the configured maximum and ignores the raw parameters', () => {
    expect(
      parseReadParams(new URLSearchParams('limit=x'), { maxLimit: 1000, maxLogicDepth: 64, limit: 5000, offset: 3 }),
    ).toMatchObject({ limit: 1000, offset: 3 })
    expect(read('', 50).limit).toBe(50)
  })
})
