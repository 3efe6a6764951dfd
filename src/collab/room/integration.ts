// Integrating an update's structs on paper, as Yjs would integrate them into a document whose
// state vector is `clocks` (doc-state.ts): whether all of them can go in, and how far each
// client's structs get when some cannot (the rest is what a Y.Doc keeps pending).
import { STRUCT_STRIDE } from '@tandem/protocol/update-scan'

/**
 * Whether every struct can be integrated, in some order, as Yjs would: each starts at or before
 * its client's clock (no gap) and every id it needs of another client is below that client's
 * clock, counting what the update's own earlier structs provide. A struct already held is
 * skipped, as Yjs skips it.
 */
export function integrates(s: readonly number[], clocks: ReadonlyMap<number, number>): boolean {
  if (s.length === 0) return true
  if (oneClient(s)) return integratesOneClient(s, clocks)
  return walk(s, clocks, new Map()) === 0
}

/** Each client's clock once the structs `s` that integrate are taken (clients it does not move are absent). */
export function reachOf(s: readonly number[], clocks: ReadonlyMap<number, number>): Map<number, number> {
  const local = new Map<number, number>()
  walk(s, clocks, local)
  return local
}

/**
 * Integrates the structs `s` in some order as Yjs would, on paper: fills `local` with each
 * client's clock after the ones that integrate; returns how many clients' runs stop short.
 */
function walk(s: readonly number[], clocks: ReadonlyMap<number, number>, local: Map<number, number>): number {
  const at = (c: number) => local.get(c) ?? clocks.get(c) ?? 0
  // one run per client (a v1 update groups structs by client): its next struct's offset
  const runs: number[] = []
  for (let i = 0; i < s.length; i += STRUCT_STRIDE) if (i === 0 || s[i] !== s[i - STRUCT_STRIDE]) runs.push(i)
  const ends = runs.slice(1).concat(s.length)
  let left = runs.length
  for (let progress = true; progress && left > 0;) {
    progress = false
    for (let k = 0; k < runs.length; k++) {
      let i = runs[k]!
      const end = ends[k]!
      if (i === end) continue
      for (; i < end; i += STRUCT_STRIDE) {
        const client = s[i]!
        const clock = s[i + 1]!
        const next = clock + s[i + 2]!
        const state = at(client)
        if (next <= state) continue
        if (clock > state) break
        if (s[i + 3]! >= 0 && s[i + 4]! >= at(s[i + 3]!)) break
        if (s[i + 5]! >= 0 && s[i + 6]! >= at(s[i + 5]!)) break
        local.set(client, next)
      }
      if (i !== runs[k]) progress = true
      runs[k] = i
      if (i === end) left--
    }
  }
  return left
}

/** integrates() for the common update, one client's structs (typing): no allocation. */
function integratesOneClient(s: readonly number[], clocks: ReadonlyMap<number, number>): boolean {
  let state = clocks.get(s[0]!) ?? 0
  for (let i = 0; i < s.length; i += STRUCT_STRIDE) {
    const clock = s[i + 1]!
    const next = clock + s[i + 2]!
    if (next <= state) continue
    if (clock > state) return false
    if (s[i + 3]! >= 0 && s[i + 4]! >= (clocks.get(s[i + 3]!) ?? 0)) return false
    if (s[i + 5]! >= 0 && s[i + 6]! >= (clocks.get(s[i + 5]!) ?? 0)) return false
    state = next
  }
  return true
}

/** Whether every struct is of one client (a client listed twice, apart, is not trusted to be). */
function oneClient(s: readonly number[]): boolean {
  for (let i = STRUCT_STRIDE; i < s.length; i += STRUCT_STRIDE) if (s[i] !== s[0]) return false
  return true
}
