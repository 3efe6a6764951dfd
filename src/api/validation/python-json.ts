// Where and why CPython's json module rejects a document: FastAPI reports a body that does not parse
// as `json_invalid` with loc ["body", <position>] and ctx.error = the json module's message. JSON.parse
// says neither in the same words, so on a parse failure this scanner (CPython's C scanner rules,
// positions in code points) finds them. It is never used for successful parses. Containers nested
// deeper than `maxDepth` fail at their opening bracket, the way CPython's recursion limit stops its
// scanner, which also bounds this scanner's own recursion.
import { tooDeepMessage } from '../../infra/json-depth.js'

export interface JsonProblem {
  pos: number
  msg: string
}

class Fail {
  constructor(
    readonly pos: number,
    readonly msg: string,
  ) {}
}

const WS = new Set([' ', '\t', '\n', '\r'])

export function pythonJsonError(text: string, maxDepth: number): JsonProblem | null {
  const s = Array.from(text)
  const n = s.length
  const ws = (i: number) => {
    while (i < n && WS.has(s[i]!)) i++
    return i
  }
  const expectValue = (i: number) => new Fail(i, 'Expecting value')

  const str = (quote: number): number => {
    let i = quote + 1
    for (;;) {
      if (i >= n) throw new Fail(quote, 'Unterminated string starting at')
      const c = s[i]!
      if (c === '"') return i + 1
      if (c.codePointAt(0)! <= 0x1f) throw new Fail(i, 'Invalid control character at')
      if (c !== '\\') {
        i++
        continue
      }
      if (i + 1 >= n) throw new Fail(quote, 'Unterminated string starting at')
      const e = s[i + 1]!
      if (e === 'u') {
        const hex = s.slice(i + 2, i + 6).join('')
        if (i + 6 >= n || !/^[0-9a-fA-F]{4}$/.test(hex)) throw new Fail(i + 1, 'Invalid \\uXXXX escape')
        i += 6
      } else if ('"\\/bfnrt'.includes(e)) i += 2
      else throw new Fail(i, 'Invalid \\escape')
    }
  }

  const number = (i: number): number => {
    let j = i
    if (s[j] === '-') j++
    if (s[j] === '0') j++
    else if (s[j] !== undefined && s[j]! >= '1' && s[j]! <= '9') while (s[j] !== undefined && /\d/.test(s[j]!)) j++
    else throw expectValue(i)
    if (s[j] === '.' && s[j + 1] !== undefined && /\d/.test(s[j + 1]!)) {
      j += 2
      while (s[j] !== undefined && /\d/.test(s[j]!)) j++
    }
    if ((s[j] === 'e' || s[j] === 'E') && /^[+-]?\d/.test(s.slice(j + 1, j + 3).join(''))) {
      j += s[j + 1] === '+' || s[j + 1] === '-' ? 2 : 1
      while (s[j] !== undefined && /\d/.test(s[j]!)) j++
    }
    return j
  }

  const word = (i: number, w: string) => s.slice(i, i + w.length).join('') === w

  /** A value at `i` inside `depth` open containers. */
  const value = (i: number, depth: number): number => {
    const c = s[i]
    if (c === '"') return str(i)
    if ((c === '{' || c === '[') && depth >= maxDepth) throw new Fail(i, tooDeepMessage(maxDepth))
    if (c === '{') return object(i + 1, depth + 1)
    if (c === '[') return array(i + 1, depth + 1)
    for (const w of ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity']) if (word(i, w)) return i + w.length
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number(i)
    throw expectValue(i)
  }

  const object = (i: number, depth: number): number => {
    i = ws(i)
    if (s[i] === '}') return i + 1
    for (;;) {
      if (s[i] !== '"') throw new Fail(i, 'Expecting property name enclosed in double quotes')
      i = ws(str(i))
      if (s[i] !== ':') throw new Fail(i, "Expecting ':' delimiter")
      i = ws(value(ws(i + 1), depth))
      if (s[i] === '}') return i + 1
      if (s[i] !== ',') throw new Fail(i, "Expecting ',' delimiter")
      i = ws(i + 1)
    }
  }

  const array = (i: number, depth: number): number => {
    i = ws(i)
    if (s[i] === ']') return i + 1
    for (;;) {
      i = ws(value(i, depth))
      if (s[i] === ']') return i + 1
      if (s[i] !== ',') throw new Fail(i, "Expecting ',' delimiter")
      i = ws(i + 1)
    }
  }

  try {
    const end = ws(value(ws(0), 0))
    return end === n ? null : { pos: end, msg: 'Extra data' }
  } catch (e) {
    if (e instanceof Fail) return { pos: e.pos, msg: e.msg }
    throw e
  }
}
