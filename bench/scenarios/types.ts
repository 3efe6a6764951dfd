// What every scenario takes and returns.
export type Metrics = Record<string, number | null>

export interface ScenarioResult {
  metrics: Metrics
  /** anything a reader must know: failures, ratios below 1, saturation */
  notes: string[]
}

export interface Ctx {
  /** one progress line on the terminal */
  progress(line: string): void
  /** cores the server is pinned to (for the foreign-load figure), or null */
  serverCores?: number[] | null
}
