// Rate limits of the collab listener. Per socket: frames and bytes per second (token buckets with a
// burst allowance, so a fast typist or one large paste never notices); over either the socket is
// closed with 1008 and a reason. Per client address: upgrade attempts, and failed authentications
// (bad tokens); past either, upgrades get 429 with Retry-After before any token work is done.
import { TrustedProxies } from '../../infra/client-address.js'
import type { Config } from '../../infra/config.js'
import { AppError } from '../../infra/errors.js'
import type { Metrics } from '../../infra/metrics.js'
import { KeyedBuckets } from '../../infra/rate-limit.js'

/**
 * One socket's frame and byte allowances: two token buckets sharing one refill time, in one object
 * (every idle socket holds one; two TokenBuckets and their holder were ~150 B more). The socket's
 * own data holds it: a WeakMap keyed by socket cost a hash lookup per frame.
 */
export class FrameBudget {
  constructor(
    public messages: number,
    public bytes: number,
    public at: number,
  ) {}
}

export class CollabThrottle {
  private readonly upgrades: KeyedBuckets
  private readonly authFailures: KeyedBuckets
  private readonly proxies: TrustedProxies

  constructor(
    private readonly config: Config,
    private readonly metrics: Metrics,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.upgrades = new KeyedBuckets(config.upgradeBurstPerIp, config.upgradesPerSecPerIp)
    this.authFailures = new KeyedBuckets(config.authFailuresPerMinPerIp, config.authFailuresPerMinPerIp / 60)
    this.proxies = TrustedProxies.parse(config.trustedProxies)
  }

  /**
   * The client address of an HTTP request or upgrade (read before any await): the peer, or behind
   * a trusted proxy the client it names (src/infra/client-address.ts). `headers` lists every
   * header line in order, names in lower case; it is read only behind a trusted proxy.
   */
  clientIp(peer: string, headers: () => Iterable<readonly [string, string]>): string {
    if (this.proxies.empty) return peer
    // Every occurrence, in order: a proxy adds its own X-Forwarded-For after the one a client sent,
    // and a single-value header lookup would answer the client's.
    const forwardedFor: string[] = []
    const forwarded: string[] = []
    for (const [k, v] of headers()) {
      if (k === 'x-forwarded-for') forwardedFor.push(v)
      else if (k === 'forwarded') forwarded.push(v)
    }
    return this.proxies.clientOf(peer, forwardedFor.join(','), forwarded.join(','))
  }

  /**
   * Charges one frame of `bytes` to the socket; returns the reason to close it with 1008 when it
   * went over a limit, null otherwise.
   */
  chargeFrame(holder: { budget: FrameBudget | null }, bytes: number): string | null {
    const now = this.clock()
    const c = this.config
    let b = holder.budget
    if (!b) holder.budget = b = new FrameBudget(c.wsMessageBurst, c.wsByteBurst, now)
    else if (now > b.at) {
      const sec = (now - b.at) / 1000
      b.messages = Math.min(c.wsMessageBurst, b.messages + sec * c.wsMessagesPerSec)
      b.bytes = Math.min(c.wsByteBurst, b.bytes + sec * c.wsBytesPerSec)
      b.at = now
    }
    // A rate of 0 disables that limit.
    if (c.wsMessagesPerSec > 0) {
      if (b.messages < 1) {
        this.metrics.rateLimited.inc({ listener: 'collab', limit: 'ws_messages' })
        return `rate limit: over ${c.wsMessagesPerSec} messages/s`
      }
      b.messages -= 1
    }
    if (c.wsBytesPerSec > 0) {
      if (b.bytes < bytes) {
        this.metrics.rateLimited.inc({ listener: 'collab', limit: 'ws_bytes' })
        return `rate limit: over ${c.wsBytesPerSec} bytes/s`
      }
      b.bytes -= bytes
    }
    return null
  }

  /** The refusal for a request carrying a token from `ip` (too many failures lately), or null. */
  admitAuth(ip: string): AppError | null {
    const banned = this.authFailures.waitMs(ip, this.clock())
    if (banned === 0) return null
    this.metrics.rateLimited.inc({ listener: 'collab', limit: 'auth_failures' })
    return tooMany('too many failed authentications from this address', banned)
  }

  /** The refusal for an upgrade attempt from `ip`, or null to go ahead (which counts the attempt). */
  admitUpgrade(ip: string): AppError | null {
    const now = this.clock()
    const banned = this.admitAuth(ip)
    if (banned) return banned
    if (!this.upgrades.take(ip, now)) {
      this.metrics.rateLimited.inc({ listener: 'collab', limit: 'upgrades' })
      return tooMany('too many connection attempts from this address', this.upgrades.waitMs(ip, now))
    }
    return null
  }

  /** Counts a failed authentication (401) against `ip`. */
  authFailed(ip: string): void {
    this.authFailures.take(ip, this.clock())
  }
}

function tooMany(message: string, waitMs: number): AppError {
  return new AppError('rate_limited', message, { retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) })
}
