// Token expiry of live sockets with one timer per listener instead of one per socket: a Timeout
// and the two closures around it were ~280 B of each idle socket's JS (heap snapshot at 5,000
// sockets). Tokens expire on whole seconds, so sockets are kept in one set per expiry second and
// the timer is armed for the earliest of them.

export interface Expiring {
  /** The token's expiry has passed: end the socket. */
  expired(): void
}

/** setTimeout's longest delay (~24.8 days); a later expiry re-arms when it fires. */
const MAX_DELAY_MS = 2 ** 31 - 1

export class ExpiryClock {
  /** expiry second -> what expires then */
  private readonly due = new Map<number, Set<Expiring>>()
  private timer: NodeJS.Timeout | null = null
  /** the second the timer is armed for (Infinity when none) */
  private armedFor = Infinity

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    let n = 0
    for (const set of this.due.values()) n += set.size
    return n
  }

  add(item: Expiring, expSec: number): void {
    let set = this.due.get(expSec)
    if (!set) this.due.set(expSec, (set = new Set()))
    set.add(item)
    if (expSec < this.armedFor) this.arm(expSec)
  }

  remove(item: Expiring, expSec: number): void {
    const set = this.due.get(expSec)
    if (!set?.delete(item) || set.size > 0) return
    this.due.delete(expSec)
    // The timer stays armed: firing with nothing due only re-arms for the next second.
  }

  private arm(expSec: number): void {
    if (this.timer) clearTimeout(this.timer)
    this.armedFor = expSec
    this.timer = setTimeout(() => this.fire(), Math.min(MAX_DELAY_MS, Math.max(0, expSec * 1000 - this.now())))
    this.timer.unref()
  }

  private fire(): void {
    this.timer = null
    this.armedFor = Infinity
    const nowMs = this.now()
    let next = Infinity
    for (const [sec, set] of [...this.due]) {
      if (sec * 1000 > nowMs) {
        if (sec < next) next = sec
        continue
      }
      this.due.delete(sec)
      for (const item of set) item.expired()
    }
    // expired() may have added (a refresh racing the expiry) and armed already
    if (next < this.armedFor) this.arm(next)
  }
}
