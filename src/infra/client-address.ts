// The client address of a request that may have come through trusted proxies (--trusted-proxies).
// Only a peer that is itself trusted may name the client: then X-Forwarded-For (or, when that is
// absent, `Forwarded: for=`) is read from the right, skipping every trusted hop, and the first
// address that is not trusted is the client. Anything an untrusted peer sends is ignored, and a
// header that cannot be read (garbage, "unknown", obfuscated names) stops the walk at the last
// trusted hop: a client can never choose the address its limits are counted against.
import { isIP } from 'node:net'

/** 16 bytes; IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d), so one comparison serves both. */
type Bytes = Uint8Array

interface Range {
  base: Bytes
  bits: number
}

export class TrustedProxies {
  private constructor(private readonly ranges: readonly Range[]) {}

  static readonly none = new TrustedProxies([])

  /** `list` of addresses and CIDRs (IPv4 and IPv6); throws naming the first entry it cannot read. */
  static parse(list: readonly string[]): TrustedProxies {
    const ranges = list.map((entry) => {
      const slash = entry.indexOf('/')
      const addr = slash < 0 ? entry : entry.slice(0, slash)
      const base = toBytes(addr)
      const v4 = isIP(addr) === 4
      const max = v4 ? 32 : 128
      const prefix = slash < 0 ? max : /^\d{1,3}$/.test(entry.slice(slash + 1)) ? Number(entry.slice(slash + 1)) : NaN
      if (!base || !(prefix >= 0 && prefix <= max)) throw new Error(`not an address or CIDR: ${JSON.stringify(entry)}`)
      return { base, bits: v4 ? prefix + 96 : prefix }
    })
    return ranges.length ? new TrustedProxies(ranges) : TrustedProxies.none
  }

  get empty(): boolean {
    return this.ranges.length === 0
  }

  has(bytes: Bytes): boolean {
    return this.ranges.some((r) => inRange(bytes, r))
  }

  /**
   * The client address of a request from `peer` carrying `forwardedFor` (X-Forwarded-For) and
   * `forwarded` (RFC 7239) header values ('' when absent). The answer is canonical (IPv4 dotted,
   * IPv4-mapped IPv6 as IPv4, IPv6 compressed lower case), so one client is one key.
   */
  clientOf(peer: string, forwardedFor: string, forwarded: string): string {
    const peerBytes = toBytes(peer)
    if (!peerBytes) return peer
    let client = canonical(peerBytes)
    if (this.empty || !this.has(peerBytes)) return client
    const hops = forwardedFor ? forwardedFor.split(',').map((h) => h.trim()) : forwardedFors(forwarded)
    for (let i = hops.length - 1; i >= 0; i--) {
      const bytes = toBytes(stripPort(hops[i]!))
      if (!bytes) break // unreadable: the last trusted hop is all we know
      client = canonical(bytes)
      if (!this.has(bytes)) break
    }
    return client
  }
}

/** The `for=` values of a Forwarded header, in order, quotes removed. */
function forwardedFors(header: string): string[] {
  const out: string[] = []
  for (const element of header.split(',')) {
    for (const pair of element.split(';')) {
      const eq = pair.indexOf('=')
      if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== 'for') continue
      out.push(
        pair
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      )
    }
  }
  return out
}

/** `[v6]:port` -> v6, `[v6]` -> v6, `a.b.c.d:port` -> a.b.c.d; anything else as given. */
function stripPort(hop: string): string {
  const bracket = /^\[([^\]]+)\](?::\d+)?$/.exec(hop)
  if (bracket) return bracket[1]!
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop)
  return v4 ? v4[1]! : hop
}

function toBytes(addr: string): Bytes | null {
  const plain = addr.replace(/%.*$/, '') // an IPv6 zone id says nothing about the host
  const kind = isIP(plain)
  const out = new Uint8Array(16)
  if (kind === 4) {
    out[10] = out[11] = 0xff
    plain.split('.').forEach((o, i) => (out[12 + i] = Number(o)))
    return out
  }
  if (kind !== 6) return null
  // The URL parser writes any IPv6 form (embedded IPv4, leading zeros) as hex groups with one `::`.
  const hex = new URL(`http://[${plain}]`).hostname.slice(1, -1)
  const [head, tail] = hex.split('::') as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  groups.forEach((g, i) => {
    const n = parseInt(g, 16)
    out[2 * i] = n >> 8
    out[2 * i + 1] = n & 0xff
  })
  return out
}

function isMappedV4(b: Bytes): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false
  return b[10] === 0xff && b[11] === 0xff
}

function canonical(b: Bytes): string {
  if (isMappedV4(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16))
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1)
}

function inRange(b: Bytes, r: Range): boolean {
  const full = r.bits >> 3
  for (let i = 0; i < full; i++) if (b[i] !== r.base[i]) return false
  const rest = r.bits & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (b[full]! & mask) === (r.base[full]! & mask)
}
