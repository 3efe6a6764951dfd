// A shard's timers: none fires after the stop, and load sends never fire before their time.
// Why `at` checks the clock again: Node's timers count from libuv's cached loop time and can fire
// a little early (under load, by more), and the window is compared on the marks' clock (now()).
// A mark stamped even 10 µs before the window opens is setup traffic to its receivers
// (Tally.since) while its sender counted it as sent: two deliveries "missing" that arrived.
import { now } from './marks.js'

export class Schedule {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()
  private stoppedFlag = false

  constructor(private readonly clock: () => number = now) {}

  get stopped(): boolean {
    return this.stoppedFlag
  }

  /** Runs `fn` in about `ms` unless stopped first. */
  later(ms: number, fn: () => void): void {
    const t = setTimeout(
      () => {
        this.timers.delete(t)
        if (!this.stoppedFlag) fn()
      },
      Math.max(0, ms),
    )
    this.timers.add(t)
  }

  /** Runs `fn` once the clock reads `when` or later (re-armed if the timer fires early), unless stopped. */
  at(when: number, fn: () => void): void {
    this.later(when - this.clock(), () => (this.clock() < when ? this.at(when, fn) : fn()))
  }

  /**
   * Runs `fire` every `periodMs` from a random phase after `from` (so a thousand clients do not
   * send in step) while before `until`, each run no earlier than its time; then `ended`.
   */
  every(from: number, until: number, periodMs: number, fire: () => void, ended?: () => void): void {
    const first = from + Math.random() * periodMs
    const tick = (k: number): void => {
      const when = first + k * periodMs
      if (when >= until) return ended?.()
      this.at(when, () => {
        fire()
        tick(k + 1)
      })
    }
    tick(0)
  }

  stop(): void {
    this.stoppedFlag = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}
