// A room's awareness states, each kept as the entry it arrived in (client id, clock, state bytes)
// with who introduced it and when it was last renewed. Entries are taken in clock order as
// y-protocols takes them: a newer clock, or the same clock with a null state for a live client.
// Live states sit in renewal order (a renewal moves its state to the end), so timing out is a walk
// from the front that stops at the first fresh state: thousands of quiet clients cost nothing per
// tick, and a removed client's clock is kept as long (a late stale entry cannot bring it back).
import { removalEntry, type AwarenessEntry } from '@tandem/protocol/awareness-entries'

/** Who introduced a state: a socket's peer, a REST caller, or another node of the cluster. */
export type Owner = object | 'rest'

interface Live {
  clock: number
  bytes: Uint8Array
  owner: Owner
  /** when it was last renewed (ms, the room's clock) */
  at: number
}

interface Gone {
  clock: number
  at: number
}

export class PresenceStates {
  private readonly live = new Map<number, Live>()
  private readonly gone = new Map<number, Gone>()

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.live.size
  }

  ownerOf(clientId: number): Owner | undefined {
    return this.live.get(clientId)?.owner
  }

  /** Whether `e` would change anything (its clock is new enough). */
  takes(e: AwarenessEntry): boolean {
    const prev = this.live.get(e.clientId)
    // an unknown client counts as clock 0, as y-protocols counts it (its clock-0 state is never shown)
    const clock = prev?.clock ?? this.gone.get(e.clientId)?.clock ?? 0
    return clock < e.clock || (clock === e.clock && e.removed && prev !== undefined)
  }

  /**
   * Takes `e` from `owner` if its clock is new enough. Returns whether anyone must hear of it,
   * and the owner a live state had before (to move it between peers' sets).
   */
  apply(e: AwarenessEntry, owner: Owner): { relay: boolean; was: Owner | undefined } {
    if (!this.takes(e)) return { relay: false, was: undefined }
    const prev = this.live.get(e.clientId)
    const at = this.now()
    this.live.delete(e.clientId)
    if (e.removed) {
      this.gone.delete(e.clientId)
      this.gone.set(e.clientId, { clock: e.clock, at })
      return { relay: prev !== undefined, was: prev?.owner }
    }
    this.gone.delete(e.clientId)
    this.live.set(e.clientId, { clock: e.clock, bytes: e.bytes, owner, at })
    return { relay: true, was: prev?.owner }
  }

  /** Removes a live client (its peer left, its node lapsed, it timed out): the entry telling everyone. */
  remove(clientId: number): AwarenessEntry | null {
    const prev = this.live.get(clientId)
    if (!prev) return null
    this.live.delete(clientId)
    // as y-protocols removes another client's state: same clock, null (its next renewal is newer)
    const e = removalEntry(clientId, prev.clock)
    this.gone.set(clientId, { clock: e.clock, at: this.now() })
    return e
  }

  /** Removes the states not renewed since `before` (oldest first) and forgets older removals. */
  expire(before: number, removed: (e: AwarenessEntry, owner: Owner) => void): void {
    for (const [id, s] of this.live) {
      if (s.at > before) break
      removed(this.remove(id)!, s.owner)
    }
    for (const [id, g] of this.gone) {
      if (g.at > before) break
      this.gone.delete(id)
    }
  }

  /** When the oldest state or removal was last touched (ms), or undefined when none is held. */
  oldest(): number | undefined {
    const a = this.live.values().next().value?.at
    const b = this.gone.values().next().value?.at
    return a === undefined ? b : b === undefined ? a : Math.min(a, b)
  }

  /** The live states' entries (as received), optionally only those whose owner passes `keep`. */
  *entries(keep?: (owner: Owner) => boolean): Generator<Uint8Array> {
    for (const s of this.live.values()) if (!keep || keep(s.owner)) yield s.bytes
  }

  /** Ids of the live states whose owner passes `keep`. */
  idsOf(keep: (owner: Owner) => boolean): number[] {
    const out: number[] = []
    for (const [id, s] of this.live) if (keep(s.owner)) out.push(id)
    return out
  }
}
