// Where webhooks may point: http(s) only, and, unless --webhook-allow-private, never at loopback,
// link-local, private or otherwise non-public addresses. Checked at registration (422) and again
// at every delivery on the addresses the connection actually uses (a DNS answer can change).
import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

const blocked = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(net, bits, 'ipv4')
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 (reaches IPv4 space)
] as const) {
  blocked.addSubnet(net, bits, 'ipv6')
}

/** Whether an address is loopback, link-local, private or otherwise not a public host. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family !== 6) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1]!, 'ipv4')
  return blocked.check(address, 'ipv6')
}

/** The problem with a webhook URL, or null. Names that do not resolve now are accepted (checked at delivery). */
export async function urlProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'URL is not valid'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'URL scheme should be https or http'
  if (url.username || url.password) return 'URL should not carry credentials'
  if (allowPrivate) return null
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (host === 'localhost' || host.endsWith('.localhost'))
    return 'URL points at a loopback, link-local or private address'
  let addresses: string[]
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
  } catch {
    return null
  }
  return addresses.some(isPrivateAddress) ? 'URL points at a loopback, link-local or private address' : null
}
