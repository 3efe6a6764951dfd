// Who made a change, as the history keeps it: the user alone, or the user and the update's custom
// attributions joined into one key. Everything keyed by user (the attribution index's interned
// users, activity's groups, rollback's repeat check) then tells an agent's edits from the same
// user's own without a second column, and histories recorded before attributions read unchanged.
import type { Attributes } from '../storage/doc-store.js'

const SEP = '\u0000' // never in a user id (capability.ts refuses a sub holding it)

export interface Who {
  user: string
  /** absent when the change carried none */
  attributes?: Attributes
}

/** The key of a user and attributions (keys sorted: one key per set, whatever order a store gives them back in). */
export function whoKey(user: string, attrs: Attributes | undefined): string {
  if (!attrs) return user
  const keys = Object.keys(attrs).sort()
  if (keys.length === 0) return user
  return user + SEP + JSON.stringify(keys.map((k) => [k, attrs[k]]))
}

const parsed = new Map<string, Who>()

export function whoOf(key: string): Who {
  const at = key.indexOf(SEP)
  if (at < 0) return { user: key }
  let w = parsed.get(key)
  if (!w) {
    if (parsed.size >= 10_000) parsed.clear() // a bound, not a policy: parsing again is cheap
    const pairs = JSON.parse(key.slice(at + 1)) as [string, string][]
    parsed.set(key, (w = { user: key.slice(0, at), attributes: Object.fromEntries(pairs) }))
  }
  return w
}

/** `attr=key:value` filters, all of which must match; null matches everything. */
export type AttrFilter = ReadonlyMap<string, string> | null

function matchesAttrs(key: string, filter: AttrFilter): boolean {
  if (!filter) return true
  const attrs = whoOf(key).attributes
  for (const [k, v] of filter) if (attrs?.[k] !== v) return false
  return true
}

/** Whether a who key passes both filters: users (`by`) and attributions (`attr`). */
export function whoMatches(key: string, by: ReadonlySet<string> | null, attr: AttrFilter): boolean {
  return (by === null || by.has(whoOf(key).user)) && matchesAttrs(key, attr)
}
