// The one "is this an agent" rule and what an approval mode does to a content write.
import { describe, expect, it } from 'vitest'
import type { Capability } from '../auth/capability.js'
import { holds, isAgent, ruledBy } from './policy.js'

const cap = (extra: Partial<Capability> = {}): Capability => ({
  sub: 'u',
  org: 'o',
  doc: 'd',
  branch: 'main',
  acc: 'rw',
  exp: 0,
  jti: '',
  ...extra,
})

describe('agents policy', () => {
  it('an agent is a token minted for one, or one whose own attributions say source: ai; nothing else', () => {
    expect(isAgent(cap({ agent: true }))).toBe(true)
    expect(isAgent(cap({ attr: { source: 'ai' } }))).toBe(true)
    expect(isAgent(cap({ attr: { source: 'mcp' } }))).toBe(false)
    expect(isAgent(cap())).toBe(false)
  })

  it("narrows only an agent's read-write capability, only under a mode that requires approval", () => {
    expect(ruledBy('required_with_override', cap({ agent: true })).acc).toBe('r')
    expect(ruledBy('no_approval', cap({ agent: true })).acc).toBe('rw')
    expect(ruledBy('required_no_override', cap()).acc).toBe('rw')
  })

  it('holds as the mode says, refuses the overrides it does not allow', () => {
    const ask = (o: { suggest?: boolean; override?: boolean } = {}) => ({
      suggest: o.suggest ?? false,
      override: o.override ?? false,
    })
    expect(holds('required_no_override', true, ask())).toBe(true)
    expect(() => holds('required_no_override', true, ask({ override: true }))).toThrow(/always a suggestion/)
    expect(holds('required_with_override', true, ask())).toBe(true)
    expect(holds('required_with_override', true, ask({ override: true }))).toBe(false)
    expect(holds('no_approval', true, ask())).toBe(false)
    expect(holds(null, false, ask({ suggest: true }))).toBe(true)
    expect(holds(null, false, ask())).toBe(false)
    expect(() => holds(null, false, ask({ override: true }))).toThrow(/only applies to agents/)
  })
})
