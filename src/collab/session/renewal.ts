// Fresh tokens for a protocol that can ask its client for one (Hocuspocus). Before the current
// token expires: RENEW_LEAD_SEC before `exp`, at most half the time left, none under 2 s left, on
// the listener's one expiry clock (not a timer per document), so a live document never leaves its
// room. After it expired (or was revoked): a bounded wait for the fresh one.
import type { ExpiryClock, Expiring } from '../expiry-clock.js'

const RENEW_LEAD_SEC = 30

export class Renewal implements Expiring {
  /** the second the early request is due on the clock (null: none pending) */
  private at: number | null = null
  private waiting: NodeJS.Timeout | null = null

  constructor(
    private readonly clock: ExpiryClock,
    private readonly now: () => number,
    /** the early request is due now */
    private readonly due: () => void,
  ) {}

  /** The early request, ahead of a token expiring at `exp` (epoch seconds), replacing one pending. */
  schedule(exp: number): void {
    this.clear()
    const left = exp - this.now() / 1000
    if (left < 2) return
    this.at = Math.ceil(exp - Math.min(RENEW_LEAD_SEC, left / 2))
    this.clock.add(this, this.at)
  }

  clear(): void {
    if (this.at !== null) this.clock.remove(this, this.at)
    this.at = null
  }

  expired(): void {
    this.at = null
    this.due()
  }

  /** The token expired and a fresh one was asked for: `gaveUp` unless stopWaiting() within `sec`. */
  wait(sec: number, gaveUp: () => void): void {
    this.stopWaiting()
    this.waiting = setTimeout(gaveUp, sec * 1000)
    this.waiting.unref()
  }

  stopWaiting(): void {
    if (this.waiting) clearTimeout(this.waiting)
    this.waiting = null
  }
}
