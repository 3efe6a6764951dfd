// Who edited when: attribution index entries filtered by window and users, grouped per user when
// one edit follows that user's previous one by less than the gap, ordered and limited.
import type { Attributes } from '../storage/doc-store.js'
import type { AttributionIndex } from './attribution.js'
import { whoMatches, whoOf, type AttrFilter } from './who.js'

export interface ActivityQuery {
  /** ms, inclusive */
  from: number
  to: number
  by: ReadonlySet<string> | null
  /** only edits carrying all these attributions (null: any) */
  attr?: AttrFilter
  limit: number
  order: 'asc' | 'desc'
  group: boolean
  /** ms; consecutive edits of one user closer than this merge */
  groupMaxGap: number
}

interface ActivityEntry {
  from: number
  to: number
  by: string
  /** custom attributions of the group's edits (one set per group); absent when none */
  attributes?: Attributes
  inserted: number
  deleted: number
}

export interface ActivityGroup extends ActivityEntry {
  /** positions in the index of the entries the group holds, in seq order (for deltas) */
  entries: number[]
}

export function activity(index: AttributionIndex, q: ActivityQuery): { groups: ActivityGroup[]; more: boolean } {
  // Groups are keyed by who (user and attributions): an agent's edits never join its user's own.
  const open = new Map<string, ActivityGroup>()
  const groups: ActivityGroup[] = []
  for (let i = 0; i < index.size; i++) {
    const at = index.at(i)
    const who = index.user(i)
    if (at < q.from || at > q.to || ((q.by || q.attr) && !whoMatches(who, q.by, q.attr ?? null))) continue
    const g = q.group ? open.get(who) : undefined
    if (g && at - g.to < q.groupMaxGap && at >= g.to) {
      g.to = at
      g.inserted += index.inserted(i)
      g.deleted += index.deleted(i)
      g.entries.push(i)
      continue
    }
    const { user, attributes } = whoOf(who)
    const fresh: ActivityGroup = {
      from: at,
      to: at,
      by: user,
      ...(attributes ? { attributes } : {}),
      inserted: index.inserted(i),
      deleted: index.deleted(i),
      entries: [i],
    }
    open.set(who, fresh)
    groups.push(fresh)
  }
  // Index positions follow seq: asc sorts by start, desc (newest first) by end, seq breaking ties.
  const first = (g: ActivityGroup) => g.entries[0]!
  const last = (g: ActivityGroup) => g.entries[g.entries.length - 1]!
  if (q.order === 'asc') groups.sort((a, b) => a.from - b.from || first(a) - first(b))
  else groups.sort((a, b) => b.to - a.to || last(b) - last(a))
  return { groups: groups.slice(0, q.limit), more: groups.length > q.limit }
}
