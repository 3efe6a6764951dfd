// Per-database admission: at most `concurrency` statements run, at most `queueLimit` wait; one
// more is refused at once, and a waiter that cannot start within `maxWaitMs` gives up. Either way
// the refused statement never ran, so the caller may retry it safely.

export class GateRefused extends Error {
  constructor(readonly reason: 'full' | 'timeout' | 'closed') {
    super(
      reason === 'full'
        ? 'database saturated: statement queue is full'
        : reason === 'timeout'
          ? 'database saturated: statement waited too long'
          : 'database closed',
    )
  }
}

interface Waiter {
  start(): void
  fail(e: GateRefused): void
}

export class Gate {
  private running = 0
  private readonly waiting: Waiter[] = []

  constructor(
    readonly concurrency: number,
    readonly queueLimit: number,
    readonly maxWaitMs: number,
  ) {}

  get active(): number {
    return this.running
  }

  get queued(): number {
    return this.waiting.length
  }

  get idle(): boolean {
    return this.running === 0 && this.waiting.length === 0
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire()
    try {
      return await fn()
    } finally {
      this.release()
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency && this.waiting.length === 0) {
      this.running++
      return Promise.resolve()
    }
    if (this.waiting.length >= this.queueLimit) return Promise.reject(new GateRefused('full'))
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        start: () => {
          clearTimeout(timer)
          resolve()
        },
        fail: (e) => {
          clearTimeout(timer)
          reject(e)
        },
      }
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(w)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(new GateRefused('timeout'))
      }, this.maxWaitMs)
      timer.unref?.()
      this.waiting.push(w)
    })
  }

  private release(): void {
    const next = this.waiting.shift()
    if (next)
      next.start() // the slot passes straight to the next waiter
    else this.running--
  }

  /** Refuses every waiter (used when the database closes for good). */
  drain(): void {
    for (const w of this.waiting.splice(0)) w.fail(new GateRefused('closed'))
  }
}
