// The listener's open sockets, swept for slow readers once a second. Rooms check after each
// broadcast; the sweep catches awareness-only traffic. The timer runs only while a socket is
// open, so an idle listener never wakes for it.
const SWEEP_MS = 1000

export class SweptSockets<W> extends Set<W> {
  private timer: NodeJS.Timeout | undefined
  private check: ((ws: W) => void) | undefined

  /** Starts calling `check` on every open socket each second while any is open. */
  sweep(check: (ws: W) => void): void {
    this.check = check
    this.arm()
  }

  /** No more sweeps (the listener stopped). */
  stop(): void {
    this.check = undefined
    clearInterval(this.timer)
    this.timer = undefined
  }

  override add(ws: W): this {
    super.add(ws)
    this.arm()
    return this
  }

  override delete(ws: W): boolean {
    const had = super.delete(ws)
    if (this.size === 0) {
      clearInterval(this.timer)
      this.timer = undefined
    }
    return had
  }

  private arm(): void {
    if (this.timer || !this.check || this.size === 0) return
    const check = this.check
    this.timer = setInterval(() => {
      for (const ws of this) check(ws)
    }, SWEEP_MS)
    this.timer.unref()
  }
}
