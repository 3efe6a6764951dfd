// Custom attributions checked and merged: their shape (`@tandem/api/attributions`) is at most 8
// keys `[a-z0-9_]{1,32}`, each a string of at most 128 characters.
import {
  ATTRIBUTION_KEY,
  MAX_ATTRIBUTION_KEYS,
  MAX_ATTRIBUTION_VALUE_CHARS,
  type Attributes,
} from '@tandem/api/attributions'

/** What is wrong with a would-be attribution map, or null when it is one. */
export function attributionProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'attributions must be an object of strings'
  const entries = Object.entries(value)
  if (entries.length > MAX_ATTRIBUTION_KEYS)
    return `attributions may have at most ${MAX_ATTRIBUTION_KEYS} keys, got ${entries.length}`
  for (const [k, v] of entries) {
    if (!ATTRIBUTION_KEY.test(k)) return `attribution key ${JSON.stringify(k.slice(0, 40))} must match [a-z0-9_]{1,32}`
    if (typeof v !== 'string') return `attribution ${k} must be a string`
    if ([...v].length > MAX_ATTRIBUTION_VALUE_CHARS)
      return `attribution ${k} must be at most ${MAX_ATTRIBUTION_VALUE_CHARS} characters`
  }
  return null
}

/** The map with its keys sorted (one spelling per set of attributes), or undefined when empty. */
export function normalizeAttributions(value: Readonly<Record<string, string>>): Attributes | undefined {
  const keys = Object.keys(value).sort()
  if (keys.length === 0) return undefined
  const out: Record<string, string> = {}
  for (const k of keys) out[k] = value[k]!
  return out
}

/** `over` wins key by key; still within the limits (checked by the caller). */
export function mergeAttributions(base: Attributes | undefined, over: Attributes | undefined): Attributes | undefined {
  if (!over) return base
  if (!base) return over
  return normalizeAttributions({ ...base, ...over })
}
