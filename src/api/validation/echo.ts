// What a 422 echoes of the caller's input. FastAPI copies the whole input into every error and
// lists every error; a megabyte body would come back many times over (one error per element of a
// 500,000-item list) and its serialisation is unbounded work. Inputs whose JSON fits in
// MAX_ECHO_CHARS are echoed exactly as FastAPI does; longer ones become the first MAX_ECHO_CHARS
// characters (of the string itself, or of the value's JSON text) plus "...". At most
// MAX_ECHO_ERRORS errors are listed, the first ones in FastAPI's order.

const MAX_ECHO_CHARS = 1000
export const MAX_ECHO_ERRORS = 100

/** `s` cut to `n` UTF-16 units without splitting a surrogate pair. */
function cut(s: string, n: number): string {
  const head = s.slice(0, n)
  const last = head.charCodeAt(head.length - 1)
  return last >= 0xd800 && last <= 0xdbff ? head.slice(0, -1) : head
}

function scalar(v: unknown, budget: number): string {
  if (typeof v === 'string') return JSON.stringify(v.length > budget ? v.slice(0, budget + 1) : v)
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null'
  if (typeof v === 'boolean') return String(v)
  return 'null'
}

/**
 * JSON text of `value` as JSON.stringify writes it, but stopping soon after `budget` characters:
 * every level adds a bracket before it descends, so recursion is bounded by the budget too.
 */
export function boundedJson(value: unknown, budget: number): string {
  let out = ''
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object') {
      out += scalar(v, budget)
      return
    }
    const array = Array.isArray(v)
    out += array ? '[' : '{'
    let first = true
    if (array) {
      for (let i = 0; i < v.length && out.length <= budget; i++) {
        if (!first) out += ','
        first = false
        walk(v[i] === undefined || typeof v[i] === 'function' ? null : v[i])
      }
    } else {
      for (const k of Object.keys(v)) {
        if (out.length > budget) break
        const x = (v as Record<string, unknown>)[k]
        if (x === undefined || typeof x === 'function') continue
        if (!first) out += ','
        first = false
        out += scalar(k, budget) + ':'
        walk(x)
      }
    }
    out += array ? ']' : '}'
  }
  walk(value)
  return out
}

export function echoInput(input: unknown, max = MAX_ECHO_CHARS): unknown {
  if (typeof input === 'string') return input.length > max ? cut(input, max) + '...' : input
  if (input === null || typeof input !== 'object') return input
  const text = boundedJson(input, max)
  return text.length > max ? cut(text, max) + '...' : input
}
