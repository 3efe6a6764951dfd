import { describe, expect, it } from 'vitest'
import { isAppError } from '../infra/errors.js'
import { MAX_QUERY_CHARS, parseQuery } from './query-text.js'

describe('parseQuery', () => {
  it('hands words and phrases to websearch unchanged', () => {
    expect(parseQuery(' "q3 pricing" budget -draft ')).toEqual({ web: '"q3 pricing" budget -draft', prefix: '' })
  })

  it('takes prefix words out as to_tsquery prefixes, negated ones too', () => {
    expect(parseQuery('pric* plan -budg*')).toEqual({ web: 'plan', prefix: 'pric:* & !budg:*' })
  })

  it('leaves a star inside a phrase to the phrase', () => {
    expect(parseQuery('"pric* list" q3*')).toEqual({ web: '"pric* list"', prefix: 'q3:*' })
  })

  it('reduces a prefix word to letters and digits, so to_tsquery meets no operator', () => {
    expect(parseQuery("(a&b|!c:')* x")).toEqual({ web: 'x', prefix: 'abc:*' })
    expect(parseQuery('&|!* x').prefix).toBe('')
  })

  it('refuses an empty query and one past the bound, naming the problem', () => {
    for (const [q, msg] of [
      ['   ', /empty/],
      ['x'.repeat(MAX_QUERY_CHARS + 1), /at most 500/],
    ] as const) {
      let err: unknown
      try {
        parseQuery(q)
      } catch (e) {
        err = e
      }
      expect(isAppError(err) && err.status).toBe(400)
      expect((err as Error).message).toMatch(msg)
    }
  })
})
