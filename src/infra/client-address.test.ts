import { describe, expect, it } from 'vitest'
import { TrustedProxies } from './client-address.js'

const lb = TrustedProxies.parse(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'])

describe('TrustedProxies.clientOf', () => {
  it('takes the right-most address of X-Forwarded-For that is not a trusted proxy', () => {
    expect(lb.clientOf('127.0.0.1', '203.0.113.9', '')).toBe('203.0.113.9')
    // The client's own (spoofed) entries sit left of what the proxies appended.
    expect(lb.clientOf('127.0.0.1', '6.6.6.6, 203.0.113.9, 10.1.2.3', '')).toBe('203.0.113.9')
  })

  it('ignores the headers of a peer that is not trusted', () => {
    expect(lb.clientOf('198.51.100.7', '203.0.113.9', 'for=203.0.113.9')).toBe('198.51.100.7')
    expect(TrustedProxies.none.clientOf('127.0.0.1', '203.0.113.9', '')).toBe('127.0.0.1')
  })

  it('treats an IPv4-mapped IPv6 peer as its IPv4 address', () => {
    expect(lb.clientOf('::ffff:127.0.0.1', '203.0.113.9', '')).toBe('203.0.113.9')
    expect(lb.clientOf('0000:0000:0000:0000:0000:ffff:7f00:0001', '203.0.113.9', '')).toBe('203.0.113.9')
    expect(lb.clientOf('::ffff:198.51.100.7', '', '')).toBe('198.51.100.7')
  })

  it('reads Forwarded: for= when there is no X-Forwarded-For, quoted IPv6 with a port included', () => {
    expect(lb.clientOf('127.0.0.1', '', 'for=192.0.2.60;proto=http;by=203.0.113.43')).toBe('192.0.2.60')
    expect(lb.clientOf('127.0.0.1', '', 'for="[2001:DB8:cafe::17]:4711"')).toBe('2001:db8:cafe::17')
    expect(lb.clientOf('127.0.0.1', '', 'for="192.0.2.43:47011", for=10.0.0.5')).toBe('192.0.2.43')
  })

  it('stops at the last trusted hop when a header cannot be read', () => {
    expect(lb.clientOf('127.0.0.1', 'not-an-address', '')).toBe('127.0.0.1')
    expect(lb.clientOf('127.0.0.1', '203.0.113.9, garbage, 10.0.0.7', '')).toBe('10.0.0.7')
    expect(lb.clientOf('127.0.0.1', '', 'for=unknown')).toBe('127.0.0.1')
    expect(lb.clientOf('127.0.0.1', '', 'for=_hidden')).toBe('127.0.0.1')
    expect(lb.clientOf('127.0.0.1', ',,,', '')).toBe('127.0.0.1')
  })

  it('answers the left-most hop when every hop is trusted, and one canonical form per address', () => {
    expect(lb.clientOf('127.0.0.1', '10.0.0.1, 10.0.0.2', '')).toBe('10.0.0.1')
    expect(lb.clientOf('fd00::1', '2001:0db8:0000::0001', '')).toBe('2001:db8::1')
    expect(lb.clientOf('127.0.0.1', '[2001:db8::1]:80', '')).toBe('2001:db8::1')
  })

  it('matches CIDR prefixes bit by bit, IPv4 and IPv6', () => {
    const t = TrustedProxies.parse(['192.168.4.0/22', '2001:db8:8000::/33'])
    expect(t.clientOf('192.168.7.255', '1.2.3.4', '')).toBe('1.2.3.4')
    expect(t.clientOf('192.168.8.0', '1.2.3.4', '')).toBe('192.168.8.0')
    expect(t.clientOf('2001:db8:ffff::1', '1.2.3.4', '')).toBe('1.2.3.4')
    expect(t.clientOf('2001:db8:7fff::1', '1.2.3.4', '')).toBe('2001:db8:7fff::1')
    expect(TrustedProxies.parse(['0.0.0.0/0']).clientOf('8.8.8.8', '1.2.3.4', '')).toBe('1.2.3.4')
  })
})

describe('TrustedProxies.parse', () => {
  it('refuses what is not an address or CIDR, naming it', () => {
    for (const bad of ['localhost', '10.0.0.0/33', '::1/129', '10.0.0.0/', '1.2.3', '10.0.0.0/8/8', 'fd00::/x']) {
      expect(() => TrustedProxies.parse([bad])).toThrow(JSON.stringify(bad))
    }
    expect(TrustedProxies.parse([]).empty).toBe(true)
  })
})
