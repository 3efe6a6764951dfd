// Rate limits of the collab listener. Per socket: frames and bytes per second (token buckets with a
// burst allowance, so a fast typist or one large paste never notices); over either the socket is
// closed with 1008 and a reason. Per client address: upgrade attempts, and failed authentications
// (bad tokens); past either, upgrades get 429 with Retry-After before any token work is done.
import type uWS from 'uWebSockets.js'
import type { Config } from '../../infra/config.js'
import { AppError } from '../../infra/errors.js'
import type { Metrics } from '../../infra/metrics.js'
import { KeyedBuckets, TokenBucket } from '../../infra/rate-limit.js'

interface SocketBuckets {
  messages: TokenBucket
  bytes: TokenBucket
}

export class CollabThrottle {
  private readonly sockets = new WeakMap<object, SocketBuckets>()
  private readonly upgrades: KeyedBuckets
  private readonly authFailures: KeyedBuckets

  constructor(
    private readonly config: Config,
    private readonly metrics: Metrics,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.upgrades = new KeyedBuckets(config.upgradeBurstPerIp, config.upgradesPerSecPerIp)
    this.authFailures = new KeyedBuckets(config.authFailuresPerMinPerIp, config.authFailuresPerMinPerIp / 60)
  }

  /**
   * Charges one frame of `bytes` to the socket; returns the reason to close it with 1008 when it
   * went over a limit, null otherwise.
   */
  chargeFrame(ws: object, bytes: number): string | null {
    const now = this.clock()
    let b = this.sockets.get(ws)
    if (!b) {
      b = {
        messages: new TokenBucket(this.config.wsMessageBurst, this.config.wsMessagesPerSec, now),
        bytes: new TokenBucket(this.config.wsByteBurst, this.config.wsBytesPerSec, now),
      }
      this.sockets.set(ws, b)
    }
    if (!b.messages.take(1, now)) {
      this.metrics.rateLimited.inc({ listener: 'collab', limit: 'ws_messages' })
      return `rate limit: over ${this.config.wsMessagesPerSec} messages/s`
    }
    if (!b.bytes.take(bytes, now)) {
      this.metrics.rateLimited.inc({ listener: 'collab', limit: 'ws_bytes' })
      return `rate limit: over ${this.config.wsBytesPerSec} bytes/s`
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

const perListener = new WeakMap<object, CollabThrottle>()

/** The one throttle of a collab listener (its WebSocket and REST paths share the per-address counts). */
export function throttleOf(d: { config: Config; metrics: Metrics }): CollabThrottle {
  let t = perListener.get(d)
  if (!t) perListener.set(d, (t = new CollabThrottle(d.config, d.metrics)))
  return t
}

function tooMany(message: string, waitMs: number): AppError {
  return new AppError('rate_limited', message, { retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) })
}

/** The client address of an HTTP request or upgrade (read before any await). */
export function remoteIp(res: uWS.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString()
}
