// A disposable stack: whatever a composition opens it registers here once, with its close, and
// `close()` runs the closes in reverse order of registration. The same stack unwinds a start that
// failed half-way and a server that stops, so no teardown list can fall out of step with the
// order things were opened in.

type Close = () => unknown

export class Resources {
  private readonly closes: Array<{ name: string; close: Close }> = []
  private closing: Promise<void> | undefined

  /** Registers `value`'s close and returns `value`, so opening and registering is one line. */
  add<T>(name: string, value: T, close: (value: T) => unknown): T {
    this.defer(name, () => close(value))
    return value
  }

  /** Registers a close that is not tied to one value (timers, a background task). */
  defer(name: string, close: Close): void {
    if (this.closing) throw new Error(`cannot register ${name}: resources are closing`)
    this.closes.push({ name, close })
  }

  /**
   * Idempotent. Every close runs even if an earlier one failed; the first failure is rethrown at
   * the end, naming the resource, so a broken close never leaves later ones (storage) open.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      let first: Error | undefined
      for (const { name, close } of this.closes.reverse()) {
        try {
          await close()
        } catch (err) {
          first ??= new Error(`closing ${name} failed: ${(err as Error).message}`, { cause: err })
        }
      }
      if (first) throw first
    })()
    return this.closing
  }
}
