// The deletions a document holds, per client as sorted, disjoint [start, end) clock ranges: enough
// to tell whether an update deletes anything new without a Y.Doc. Every reconnecting provider
// sends its whole delete set in its sync step 2, so this check runs on every join.

export class DeleteIndex {
  /** per client: start0, end0, start1, end1, ... sorted, apart (adjacent ranges are joined) */
  private readonly ranges = new Map<number, number[]>()
  private count = 0

  /** ranges held: the index costs about 16 bytes each */
  get size(): number {
    return this.count
  }

  /** Whether clocks [clock, clock + len) of `client` are all deleted. */
  covers(client: number, clock: number, len: number): boolean {
    const r = this.ranges.get(client)
    if (!r) return false
    const i = lastStartAtOrBefore(r, clock)
    return i >= 0 && r[i + 1]! >= clock + len
  }

  add(client: number, clock: number, len: number): void {
    let r = this.ranges.get(client)
    if (!r) this.ranges.set(client, (r = []))
    let start = clock
    let end = clock + len
    // the first range that touches [start, end), then every range it swallows
    let i = lastStartAtOrBefore(r, start)
    if (i < 0 || r[i + 1]! < start) i += 2
    let j = i
    while (j < r.length && r[j]! <= end) {
      start = Math.min(start, r[j]!)
      end = Math.max(end, r[j + 1]!)
      j += 2
    }
    this.count += 1 - (j - i) / 2
    r.splice(i, j - i, start, end)
  }
}

/** Index of the last range (even offset) starting at or before `clock`, -2 when none does. */
function lastStartAtOrBefore(r: number[], clock: number): number {
  let lo = 0
  let hi = r.length / 2 - 1
  let found = -2
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (r[mid * 2]! <= clock) {
      found = mid * 2
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}
