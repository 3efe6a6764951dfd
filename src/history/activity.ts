// Who edited when: attribution index entries filtered by window and users, grouped per user when
// one edit follows that user's previous one by less than the gap, ordered and limited.
import type { IndexEntry } from './attribution.js'

export interface ActivityQuery {
  /** ms, inclusive */
  from: number
  to: number
  by: ReadonlySet<string> | null
  limit: number
  order: 'asc' | 'desc'
  group: boolean
  /** ms; consecutive edits of one user closer than this merge */
  groupMaxGap: number
}

export interface ActivityEntry {
  from: number
  to: number
  by: string
  inserted: number
  deleted: number
}

export interface ActivityGroup extends ActivityEntry {
  /** the log entries the group holds, in seq order (for deltas) */
  entries: IndexEntry[]
}

export function activity(entries: readonly IndexEntry[], q: ActivityQuery): { groups: ActivityGroup[]; more: boolean } {
  const open = new Map<string, ActivityGroup>()
  const groups: ActivityGroup[] = []
  for (const e of entries) {
    if (e.at < q.from || e.at > q.to || (q.by && !q.by.has(e.user))) continue
    const g = q.group ? open.get(e.user) : undefined
    if (g && e.at - g.to < q.groupMaxGap && e.at >= g.to) {
      g.to = e.at
      g.inserted += e.inserted
      g.deleted += e.deleted
      g.entries.push(e)
      continue
    }
    const fresh: ActivityGroup = { from: e.at, to: e.at, by: e.user, inserted: e.inserted, deleted: e.deleted, entries: [e] }
    open.set(e.user, fresh)
    groups.push(fresh)
  }
  // Groups were created in seq order of their first entry: asc sorts by start, desc (newest first) by end.
  const seqOf = (g: ActivityGroup, last: boolean) => g.entries[last ? g.entries.length - 1 : 0]!.seq
  if (q.order === 'asc') groups.sort((a, b) => a.from - b.from || seqOf(a, false) - seqOf(b, false))
  else groups.sort((a, b) => b.to - a.to || seqOf(b, true) - seqOf(a, true))
  return { groups: groups.slice(0, q.limit), more: groups.length > q.limit }
}
