import { describe, expect, it } from 'vitest'
import { scrubTokens } from './log.js'

describe('token scrubbing of log lines', () => {
  const jwt = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhIn0.c2ln_-'
  it('removes JWS tokens anywhere and whatever follows yauth=, yauth- and Bearer', () => {
    expect(scrubTokens(`GET /a/b?yauth=${jwt}&x=1`)).toBe('GET /a/b?yauth=[redacted]&x=1')
    expect(scrubTokens(`"msg":"${jwt}"`)).toBe('"msg":"[redacted]"')
    expect(scrubTokens('url /a?yauth=short-secret"')).toBe('url /a?yauth=[redacted]"')
    expect(scrubTokens('proto yauth-abc.def, other')).toBe('proto yauth-[redacted], other')
    expect(scrubTokens('"authorization":"Bearer s3cret"')).toBe('"authorization":"Bearer [redacted]"')
  })

  it('leaves lines without tokens alone', () => {
    const line = '{"level":30,"msg":"api request","path":"/api/v0/assets/x","status":200}'
    expect(scrubTokens(line)).toBe(line)
  })
})
