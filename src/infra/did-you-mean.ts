// "Did you mean": the known name closest to a mistyped one, for the messages that refuse an unknown
// command, flag or value. Pure.

/** Edit distance (insertions, deletions, substitutions, and swaps of two neighbours). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The candidate closest to `input`, if it is close enough to be a typo (at most a third of its
 * letters off, at least one), or one that starts with it (`--collab` for `--collab-port`).
 */
export function closest(input: string, candidates: Iterable<string>): string | null {
  let best: string | null = null
  let bestDistance = Infinity
  for (const c of candidates) {
    const d = distance(input.toLowerCase(), c.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [c, d]
  }
  if (best !== null && bestDistance <= Math.max(1, Math.floor(best.length / 3))) return best
  const prefixed = [...candidates].filter((c) => input.length >= 3 && c.startsWith(input))
  return prefixed.length === 1 ? prefixed[0]! : null
}

/** `"; did you mean X?"` (X as `show` renders it), or `""` when nothing is close. */
export function didYouMean(
  input: string,
  candidates: Iterable<string>,
  show: (name: string) => string = (n) => n,
): string {
  const c = closest(input, candidates)
  return c === null ? '' : `; did you mean ${show(c)}?`
}
