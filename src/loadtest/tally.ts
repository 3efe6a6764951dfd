// What a load run counts: the first sighting of each mark by each receiver, with its latency, for
// updates and awareness apart. Every client of a run reports into one Tally; duplicates (echoes,
// a mark seen again in a sync step 2) are counted as such, never as deliveries. Kept apart from the
// client because it is the measurement, and the client only the socket that feeds it.
import { DecodeCache, readAwarenessMarks, readMarks, type Mark } from './marks.js'
import { Samples } from './stats.js'

/** Counts first sightings of marks across all clients of a run. */
export class Tally {
  readonly updateLatency = new Samples()
  readonly awarenessLatency = new Samples()
  delivered = 0
  awarenessDelivered = 0
  duplicates = 0
  /** marks sent before this time (ms) are ignored (setup traffic) */
  since = 0
  readonly updates = new DecodeCache(readMarks)
  readonly awareness = new DecodeCache(readAwarenessMarks)

  /**
   * Records what one receiver (`receiver`, the client's id) found in a payload received at `recv`:
   * its own marks and setup traffic are skipped, `seen` is that receiver's set for this kind.
   */
  record(receiver: number, seen: Set<number>, marks: Mark[], recv: number, awareness: boolean): void {
    for (const m of marks) {
      if (m.sender === receiver || m.ts < this.since) continue
      const key = m.sender * 1_000_000 + m.seq
      if (seen.has(key)) {
        this.duplicates++
        continue
      }
      seen.add(key)
      if (awareness) {
        this.awarenessDelivered++
        this.awarenessLatency.add(recv - m.ts)
      } else {
        this.delivered++
        this.updateLatency.add(recv - m.ts)
      }
    }
  }
}
