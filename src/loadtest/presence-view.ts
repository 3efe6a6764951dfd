// What every client of a presence load sees of the room: per receiver the latest awareness seq of
// each sender (client ids 0..n-1), so the run can say whether every observer ends with every
// client's final state, and the latency of each state a receiver sees newer than the one before
// (a server that coalesces skips states in between; that is its right, what counts is the latest).
// Identical frames, which every receiver of a room gets, are decoded once.
import { DecodeCache, readAwarenessMarks } from './marks.js'
import { Samples } from './stats.js'

export class PresenceView {
  readonly latency = new Samples()
  /** marks sent before this time (ms) count for the final states, not for latency */
  since = Infinity
  private readonly cache = new DecodeCache(readAwarenessMarks, 5_000)
  private readonly latest: Int32Array[]

  constructor(private readonly n: number) {
    this.latest = Array.from({ length: n }, () => new Int32Array(n))
  }

  /** Receiver `r` got an awareness update at `recv`. */
  saw(r: number, update: Uint8Array, recv: number): void {
    const row = this.latest[r]!
    for (const m of this.cache.get(update)) {
      if (m.sender === r || m.sender >= this.n || m.seq <= row[m.sender]!) continue
      row[m.sender] = m.seq
      if (m.ts >= this.since) this.latency.add(recv - m.ts)
    }
  }

  /** Of every (receiver, sender) pair, how many hold the sender's final seq; `final[s]` is what s sent last. */
  agreement(final: ArrayLike<number>, receivers: Iterable<number>): { right: number; pairs: number } {
    let right = 0
    let pairs = 0
    for (const r of receivers) {
      const row = this.latest[r]!
      for (let s = 0; s < this.n; s++) {
        if (s === r || final[s] === 0) continue
        pairs++
        if (row[s] === final[s]) right++
      }
    }
    return { right, pairs }
  }
}
