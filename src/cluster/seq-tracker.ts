// Which seqs of one document this node has applied. Committed seqs are a dense prefix 1..head
// (docs/cluster.md, "Sequences"), so anything missing below the highest seq seen is a hole: a bus
// message not (yet) received. Two nodes' cycles may be published in another order than they
// committed, so a hole is only reported as a gap once it has stayed open for a grace period.
export class SeqTracker {
  /** every seq <= watermark has been applied */
  private w: number
  /** applied ranges above the watermark, disjoint, sorted by start */
  private above: [number, number][] = []

  constructor(lastSeq: number) {
    this.w = lastSeq
  }

  get watermark(): number {
    return this.w
  }

  /** highest seq known applied (the watermark when there is no hole) */
  get highest(): number {
    return this.above.length ? this.above[this.above.length - 1]![1] : this.w
  }

  get hasHole(): boolean {
    return this.above.length > 0
  }

  /** Marks from..to applied (a bus message, or this node's own commit). */
  add(from: number, to: number): void {
    if (to <= this.w) return
    from = Math.max(from, this.w + 1)
    const merged: [number, number][] = []
    let cur: [number, number] = [from, to]
    for (const r of this.above) {
      if (r[1] + 1 < cur[0] || cur[1] + 1 < r[0]) merged.push(r)
      else cur = [Math.min(cur[0], r[0]), Math.max(cur[1], r[1])]
    }
    merged.push(cur)
    merged.sort((a, b) => a[0] - b[0])
    this.above = merged
    this.settle()
  }

  /** Everything up to seq is applied (a resync read the log up to there). */
  advanceTo(seq: number): void {
    if (seq <= this.w) return
    this.w = seq
    this.above = this.above.filter((r) => r[1] > seq)
    if (this.above.length && this.above[0]![0] <= seq) this.above[0]![0] = seq + 1
    this.settle()
  }

  private settle(): void {
    while (this.above.length && this.above[0]![0] === this.w + 1) {
      this.w = this.above.shift()![1]
    }
  }
}
