// A cursor over one query parameter's value. Names are either double-quoted (backslash escapes
// any character, so `"a,b"` and `"say \"hi\""` work) or a bare run of characters up to a
// delimiter, trimmed of surrounding spaces as PostgREST does.
import { QueryError } from './errors.js'

export class Scanner {
  pos = 0
  constructor(
    readonly text: string,
    readonly param: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.text.length
  }

  peek(): string | undefined {
    return this.text[this.pos]
  }

  startsWith(s: string): boolean {
    return this.text.startsWith(s, this.pos)
  }

  /** Consumes `s` when it comes next. */
  eat(s: string): boolean {
    if (!this.startsWith(s)) return false
    this.pos += s.length
    return true
  }

  expect(s: string, what: string): void {
    if (!this.eat(s)) this.fail(`expected ${what}`)
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++
  }

  /** A quoted string starting at the current `"`; backslash escapes the next character. */
  quoted(): string {
    const start = this.pos
    this.pos++ // opening quote
    let out = ''
    for (;;) {
      const c = this.text[this.pos++]
      if (c === undefined) {
        this.pos = start
        this.fail('unterminated quoted value')
      }
      if (c === '"') return out
      if (c === '\\') {
        const next = this.text[this.pos++]
        if (next === undefined) {
          this.pos = start
          this.fail('unterminated quoted value')
        }
        out += next
      } else out += c
    }
  }

  /** Raw characters up to (not including) the first of `stops`, or the end. */
  until(stops: string): string {
    const start = this.pos
    while (!this.done && !stops.includes(this.text[this.pos]!)) this.pos++
    return this.text.slice(start, this.pos)
  }

  rest(): string {
    const out = this.text.slice(this.pos)
    this.pos = this.text.length
    return out
  }

  /** A column name or alias: quoted, or bare up to one of `stops` (and never containing `"`). */
  name(stops: string, what: string): string {
    this.skipSpaces()
    let out: string
    if (this.peek() === '"') out = this.quoted()
    else {
      out = this.until(stops + '"').trim()
      if (this.peek() === '"') this.fail(`unexpected '"' in ${what}`)
    }
    this.skipSpaces()
    if (out === '') this.fail(`expected ${what}`)
    // PostgreSQL identifiers cannot hold NUL (and the wire protocol would cut the statement there).
    if (out.includes('\u0000')) this.fail(`NUL character in ${what}`)
    return out
  }

  fail(reason: string): never {
    const where = this.done ? 'at the end' : `at position ${this.pos + 1}`
    throw new QueryError(this.param, `${reason} ${where} of ${JSON.stringify(this.text)}`)
  }
}
