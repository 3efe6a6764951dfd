// Validation of zod-described inputs with pydantic's (v2, lax mode) coercions, error types and
// messages, so 422 bodies match what a FastAPI service returns field for field. zod stays the
// single description of each input: it also produces the OpenAPI document.
import type { z } from 'zod'

export interface PydanticError {
  type: string
  loc: (string | number)[]
  msg: string
  input: unknown
  ctx?: Record<string, unknown>
}

type Loc = (string | number)[]
// Minimal view of zod 4's public `def` of each schema node.
interface Def {
  type: string
  innerType?: z.ZodType
  defaultValue?: unknown
  shape?: Record<string, z.ZodType>
  entries?: Record<string, string | number>
  options?: z.ZodType[]
  element?: z.ZodType
  valueType?: z.ZodType
  format?: string
  checks?: { _zod: { def: { check: string; value?: number; inclusive?: boolean } } }[]
}
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def

const err = (type: string, loc: Loc, msg: string, input: unknown, ctx?: Record<string, unknown>): PydanticError =>
  ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input }

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** "'a', 'b' or 'c'", the way pydantic lists expected values. */
export function expectedList(values: unknown[]): string {
  const q = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)))
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`
}

/** Whether a missing value is acceptable (optional or defaulted). */
function isOptional(s: z.ZodType): boolean {
  const t = defOf(s).type
  return t === 'optional' || t === 'default' || (t === 'nullable' && isOptional(defOf(s).innerType!))
}

const TRUE = new Set(['1', 'on', 't', 'true', 'y', 'yes'])
const FALSE = new Set(['0', 'off', 'f', 'false', 'n', 'no'])

function bounds(d: Def, n: number, loc: Loc, input: unknown, out: PydanticError[]): boolean {
  for (const c of d.checks ?? []) {
    const { check, value, inclusive } = c._zod.def
    if (value === undefined) continue
    if (check === 'greater_than' && (inclusive ? n < value : n <= value)) {
      out.push(
        inclusive
          ? err('greater_than_equal', loc, `Input should be greater than or equal to ${value}`, input, { ge: value })
          : err('greater_than', loc, `Input should be greater than ${value}`, input, { gt: value }),
      )
      return false
    }
    if (check === 'less_than' && (inclusive ? n > value : n >= value)) {
      out.push(
        inclusive
          ? err('less_than_equal', loc, `Input should be less than or equal to ${value}`, input, { le: value })
          : err('less_than', loc, `Input should be less than ${value}`, input, { lt: value }),
      )
      return false
    }
  }
  return true
}

function int(d: Def, input: unknown, loc: Loc, out: PydanticError[]): number | undefined {
  let n: number
  if (typeof input === 'number') {
    if (!Number.isFinite(input))
      return void out.push(err('finite_number', loc, 'Input should be a finite number', input))
    if (!Number.isInteger(input))
      return void out.push(
        err('int_from_float', loc, 'Input should be a valid integer, got a number with a fractional part', input),
      )
    n = input
  } else if (typeof input === 'string') {
    const s = input.trim().replace(/(\d)_(?=\d)/g, '$1')
    const m = /^([+-]?\d+)(?:\.0*)?$/.exec(s)
    // pydantic-core accepts "12" and "12.000" from a string; "12.5" is int_parsing (not int_from_float).
    if (!m)
      return void out.push(
        err('int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', input),
      )
    n = Number(m[1])
    if (!Number.isSafeInteger(n))
      return void out.push(
        err('int_parsing_size', loc, 'Unable to parse input string as an integer, exceeded maximum size', input),
      )
  } else if (typeof input === 'boolean') {
    n = input ? 1 : 0
  } else return void out.push(err('int_type', loc, 'Input should be a valid integer', input))
  return bounds(d, n, loc, input, out) ? n : undefined
}

function num(d: Def, input: unknown, loc: Loc, out: PydanticError[]): number | undefined {
  let n: number
  if (typeof input === 'number') n = input
  else if (typeof input === 'string' && input.trim() !== '' && !Number.isNaN(Number(input.trim())))
    n = Number(input.trim())
  else if (typeof input === 'string')
    return void out.push(
      err('float_parsing', loc, 'Input should be a valid number, unable to parse string as a number', input),
    )
  else return void out.push(err('float_type', loc, 'Input should be a valid number', input))
  return bounds(d, n, loc, input, out) ? n : undefined
}

function bool(input: unknown, loc: Loc, out: PydanticError[]): boolean | undefined {
  if (typeof input === 'boolean') return input
  if (typeof input === 'number' && (input === 0 || input === 1)) return input === 1
  if (typeof input === 'string') {
    const s = input.toLowerCase()
    if (TRUE.has(s)) return true
    if (FALSE.has(s)) return false
  }
  if (typeof input === 'string' || typeof input === 'number')
    return void out.push(err('bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', input))
  return void out.push(err('bool_type', loc, 'Input should be a valid boolean', input))
}

/** Validates `input` against `schema`, appending pydantic-shaped errors to `out`. */
export function check(schema: z.ZodType, input: unknown, loc: Loc, out: PydanticError[]): unknown {
  const d = defOf(schema)
  switch (d.type) {
    case 'optional':
      return input === undefined ? undefined : check(d.innerType!, input, loc, out)
    case 'default':
      return input === undefined ? structuredClone(d.defaultValue) : check(d.innerType!, input, loc, out)
    case 'nullable':
      return input === null ? null : check(d.innerType!, input, loc, out)
    case 'string': {
      if (typeof input !== 'string')
        return void out.push(err('string_type', loc, 'Input should be a valid string', input))
      const length = [...input].length
      for (const c of (d.checks ?? []) as unknown as {
        _zod: { def: { check: string; minimum?: number; maximum?: number } }
      }[]) {
        const { check: kind, minimum, maximum } = c._zod.def
        const chars = (n: number) => `${n} character${n === 1 ? '' : 's'}`
        if (kind === 'min_length' && minimum !== undefined && length < minimum) {
          return void out.push(
            err('string_too_short', loc, `String should have at least ${chars(minimum)}`, input, {
              min_length: minimum,
            }),
          )
        }
        if (kind === 'max_length' && maximum !== undefined && length > maximum) {
          return void out.push(
            err('string_too_long', loc, `String should have at most ${chars(maximum)}`, input, { max_length: maximum }),
          )
        }
      }
      return input
    }
    case 'number':
      return d.format === 'safeint' || d.format === 'int32' ? int(d, input, loc, out) : num(d, input, loc, out)
    case 'boolean':
      return bool(input, loc, out)
    case 'enum': {
      const values = Object.values(d.entries!)
      if (values.includes(input as string)) return input
      const expected = expectedList(values)
      return void out.push(err('enum', loc, `Input should be ${expected}`, input, { expected }))
    }
    case 'object': {
      // FastAPI validates bodies with from_attributes, hence this type rather than `model_type`.
      if (!isPlainObject(input))
        return void out.push(
          err(
            'model_attributes_type',
            loc,
            'Input should be a valid dictionary or object to extract fields from',
            input,
          ),
        )
      const value: Record<string, unknown> = {}
      for (const [k, field] of Object.entries(d.shape!)) {
        if (input[k] === undefined && !isOptional(field)) {
          out.push(err('missing', [...loc, k], 'Field required', input))
          continue
        }
        const v = check(field, input[k], [...loc, k], out)
        if (v !== undefined) value[k] = v
      }
      return value
    }
    case 'array': {
      if (!Array.isArray(input)) return void out.push(err('list_type', loc, 'Input should be a valid list', input))
      return input.map((v, i) => check(d.element!, v, [...loc, i], out))
    }
    case 'record': {
      if (!isPlainObject(input))
        return void out.push(err('dict_type', loc, 'Input should be a valid dictionary', input))
      return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, check(d.valueType!, v, [...loc, k], out)]))
    }
    case 'union': {
      const all: PydanticError[][] = []
      for (const option of d.options!) {
        const errors: PydanticError[] = []
        const v = check(option, input, loc, errors)
        if (errors.length === 0) return v
        all.push(errors)
      }
      // one error per element of a long list: no spread, whose argument count is bounded
      for (const errors of all) for (const e of errors) out.push(e)
      return undefined
    }
    default: // unknown, any, and anything else is taken as is
      return input
  }
}

/**
 * Validates request parameters (query, path, header) one by one, the way FastAPI does: a missing
 * required parameter reports `input: null`.
 */
export function checkParams(
  shape: z.ZodObject,
  values: Record<string, unknown>,
  where: 'query' | 'path' | 'header',
  out: PydanticError[],
): Record<string, unknown> {
  const result: Record<string, unknown> = {}
  for (const [k, field] of Object.entries(shape.shape as Record<string, z.ZodType>)) {
    const raw = values[k]
    if (raw === undefined && !isOptional(field)) {
      out.push(err('missing', [where, k], 'Field required', null))
      continue
    }
    const v = check(field, raw, [where, k], out)
    if (v !== undefined) result[k] = v
  }
  return result
}
