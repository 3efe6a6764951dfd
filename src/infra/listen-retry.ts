// Binding a listener port, retried with backoff while the port is busy. Both listeners set
// SO_REUSEADDR (the collab one on uWS also for port 0, see collab/uws/listen.ts; libuv does it for ws), and the
// connections they accept inherit it, so sockets a previous process left in TIME_WAIT/FIN_WAIT never block a restart.
// What can is another socket on the same port without it: typically a local outgoing connection given our port as its
// ephemeral one while nothing listened (ports inside net.ipv4.ip_local_port_range). The kernel offers no option to bind
// over it, so we wait it out and say so in the log.
import type { Logger } from './log.js'
import { backoffMs, type Backoff } from './backoff.js'

export interface BindRetry {
  /** Give up (and rethrow the last error) after this many ms of retrying; 0 = one attempt. */
  retryMs: number
  log: Logger
  /** Name and address for the log lines, e.g. "collab 127.0.0.1:1234". */
  what: string
  /** Whether a failure is worth retrying (a busy port); others are thrown at once. */
  retryable?: (err: unknown) => boolean
  sleep?: (ms: number) => Promise<void>
}

/** a busy port is tried again after 100 ms, doubling up to 2 s */
const RETRY: Backoff = { firstMs: 100, maxMs: 2_000 }

export async function bindWithRetry<T>(attempt: () => Promise<T>, opts: BindRetry): Promise<T> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const started = Date.now()
  for (let tries = 1; ; tries++) {
    const delay = backoffMs(tries - 1, RETRY)
    try {
      const bound = await attempt()
      if (tries > 1)
        opts.log.warn(
          { listener: opts.what, tries, waitedMs: Date.now() - started },
          'listener bound after the port was busy',
        )
      return bound
    } catch (err) {
      const waited = Date.now() - started
      if (!(opts.retryable?.(err) ?? true) || waited + delay > opts.retryMs) throw err
      opts.log.warn(
        { listener: opts.what, tries, retryInMs: delay, waitedMs: waited, giveUpAfterMs: opts.retryMs },
        'port busy (another process, or a connection in TIME_WAIT holding it): retrying the bind',
      )
      await sleep(delay)
    }
  }
}
