// Per-key FIFO of async tasks within one process: a task starts once every earlier task of the same
// key has settled (fulfilled or not). Idle keys hold no memory.
export class KeyQueue {
  private readonly tails = new Map<string, Promise<unknown>>()

  run<T>(k: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(k) ?? Promise.resolve()
    const run = prev.then(fn, fn)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(k, tail)
    void tail.then(() => {
      if (this.tails.get(k) === tail) this.tails.delete(k)
    })
    return run
  }
}
