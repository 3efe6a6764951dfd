// When a room's awareness changes go out: one frame per window. A quiet room sends a change at the
// end of the tick it arrived in (a lone cursor moves at once); while frames keep coming closer than
// the bound the window doubles, from its least up to the bound, so a busy room sends at most one
// frame per bound whatever its size; a lull of two windows puts it back to the least. The latency
// cost: under load a change waits up to the bound (docs/perf/presence.md).

export interface WindowTimers {
  now(): number
  /** runs `fn` after the current tick's I/O (setImmediate); returns how to cancel it */
  soon(fn: () => void): () => void
  /** runs `fn` after `ms`; returns how to cancel it */
  later(fn: () => void, ms: number): () => void
}

const REAL_TIMERS: WindowTimers = {
  now: () => performance.now(),
  soon: (fn) => {
    const t = setImmediate(fn)
    return () => clearImmediate(t)
  },
  later: (fn, ms) => {
    const t = setTimeout(fn, ms)
    return () => clearTimeout(t)
  },
}

export interface WindowBounds {
  /** the window's first step when a room gets busy (ms) */
  minMs: number
  /** the longest a change waits for its frame (ms) */
  maxMs: number
}

export class PresenceWindow {
  private window: number
  private lastFlush = -Infinity
  private due = false
  private closed = false
  private cancel: (() => void) | null = null

  constructor(
    private readonly bounds: WindowBounds,
    private readonly flush: () => void,
    private readonly timers: WindowTimers = REAL_TIMERS,
  ) {
    this.window = Math.max(1, bounds.minMs)
  }

  /** the current window (ms) */
  get ms(): number {
    return this.window
  }

  /** Something changed: a flush is scheduled, unless one already is. */
  changed(): void {
    if (this.due || this.closed) return
    this.due = true
    const wait = this.lastFlush + this.window - this.timers.now()
    this.cancel = wait <= 0 ? this.timers.soon(this.run) : this.timers.later(this.run, wait)
  }

  /**
   * Something else goes to the room's sockets now (a document update): what is pending goes with
   * it, in the same event-loop turn, so uWS writes both to each socket at once.
   */
  now(): void {
    if (!this.due || this.closed) return
    this.cancel?.()
    this.run()
  }

  private readonly run = (): void => {
    this.due = false
    this.cancel = null
    if (this.closed) return
    const t = this.timers.now()
    const gap = t - this.lastFlush
    if (gap < this.bounds.maxMs) this.window = Math.min(this.bounds.maxMs, this.window * 2)
    else if (gap >= 2 * this.window) this.window = Math.max(1, this.bounds.minMs)
    this.lastFlush = t
    this.flush()
  }

  close(): void {
    this.closed = true
    this.cancel?.()
    this.cancel = null
  }
}
