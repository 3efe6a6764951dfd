// A per-client (IP) budget of events per minute: a fixed one-minute window per client. Memory is
// bounded: past `maxClients` tracked clients, stale windows are dropped, and while the table is
// still full new clients get no budget (they are refused, which is the safe side).
const WINDOW_MS = 60_000

export class ClientBudget {
  private readonly windows = new Map<string, { startMs: number; used: number }>()

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
    private readonly maxClients = 10_000,
  ) {}

  /** Spends one unit of `client`'s budget; false when the minute's budget is used up. */
  take(client: string): boolean {
    if (this.perMinute <= 0) return false
    const now = this.now()
    let w = this.windows.get(client)
    if (!w || now - w.startMs >= WINDOW_MS) {
      if (!w && this.windows.size >= this.maxClients) this.dropStale(now)
      if (!w && this.windows.size >= this.maxClients) return false
      w = { startMs: now, used: 0 }
      this.windows.set(client, w)
    }
    if (w.used >= this.perMinute) return false
    w.used++
    return true
  }

  private dropStale(now: number): void {
    for (const [k, w] of this.windows) if (now - w.startMs >= WINDOW_MS) this.windows.delete(k)
  }
}
