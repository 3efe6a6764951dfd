import { describe, expect, it } from 'vitest'
import type { Capability } from './capability.js'
import { matches, revocationKey, type Revocation } from './revocation.js'

const cap = (over: Partial<Capability> = {}): Capability => ({
  sub: 'ann@x.io',
  org: 'acme',
  doc: 'd1',
  branch: 'main',
  acc: 'rw',
  exp: 2000,
  iat: 1000,
  jti: 'j1',
  ...over,
})
const rev = (over: Partial<Revocation> = {}): Revocation => ({
  sub: 'ann@x.io',
  effect: 'deny',
  beforeMs: 1_000_500,
  createdAtMs: 0,
  reason: 't',
  ...over,
})

describe('deny-list matching', () => {
  it("matches tokens of the user issued before the time, counting the revocation's own second as before", () => {
    expect(matches(rev(), cap({ iat: 999 }))).toBe(true)
    expect(matches(rev(), cap({ iat: 1000 }))).toBe(true) // 1000.x s is before 1000.5 s, or in its second
    expect(matches(rev(), cap({ iat: 1001 }))).toBe(false)
    expect(matches(rev(), cap({ sub: 'bob@x.io', iat: 1 }))).toBe(false)
  })

  it('narrows by org and doc, and a jti entry matches that token only, whenever issued', () => {
    expect(matches(rev({ doc: 'd1' }), cap({ iat: 1 }))).toBe(true)
    expect(matches(rev({ doc: 'd2' }), cap({ iat: 1 }))).toBe(false)
    expect(matches(rev({ org: 'other' }), cap({ iat: 1 }))).toBe(false)
    expect(matches(rev({ jti: 'j1', beforeMs: 0 }), cap({ iat: 5000 }))).toBe(true)
    expect(matches(rev({ jti: 'j2' }), cap({ iat: 1 }))).toBe(false)
  })

  it('gives one record key per user, scope and effect, with key-safe parts', () => {
    expect(revocationKey({ sub: 'a/b@x', effect: 'deny' })).toBe('revoke/a%2Fb%40x/all/deny')
    expect(revocationKey({ sub: 'a', org: 'o', doc: 'd', effect: 'readonly' })).toBe('revoke/a/org:o,doc:d/readonly')
    expect(revocationKey({ sub: 'a', jti: 'j/1', effect: 'deny' })).toBe('revoke/a/jti:j%2F1/deny')
  })
})
