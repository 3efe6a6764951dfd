// Query and body values of the history routes, checked strictly: a bad value is a 400 that names
// the parameter, never a silent default.
import { ATTRIBUTION_KEY } from '@tandem/api/attributions'
import { attributionProblem } from '../auth/attributions.js'
import { AppError } from '../infra/errors.js'
import type { AttrFilter } from './who.js'

const bad = (message: string) => new AppError('bad_request', message)

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const raw = q.get(name)
  if (raw === null) return undefined
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw bad(`${name} must be a non-negative integer (ms), got ${JSON.stringify(raw)}`)
  return Number(raw)
}

export function boolParam(q: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = q.get(name)
  if (raw === null) return fallback
  if (/^(true|1)$/i.test(raw)) return true
  if (/^(false|0)$/i.test(raw)) return false
  throw bad(`${name} must be true or false, got ${JSON.stringify(raw)}`)
}

export function usersParam(q: URLSearchParams): ReadonlySet<string> | null {
  const all = q.getAll('by')
  if (all.length === 0) return null
  if (all.some((u) => u.length === 0 || u.length > 256)) throw bad('by must be a non-empty user id')
  return new Set(all)
}

/** `attr=key:value` (repeatable, all must match); null when none is given. */
export function attrParam(q: URLSearchParams): AttrFilter {
  const all = q.getAll('attr')
  if (all.length === 0) return null
  const filter = new Map<string, string>()
  for (const raw of all) {
    const colon = raw.indexOf(':')
    const key = colon < 0 ? raw : raw.slice(0, colon)
    if (colon < 0 || !ATTRIBUTION_KEY.test(key)) throw bad(`attr must be key:value with a key of [a-z0-9_]{1,32}, got ${JSON.stringify(raw.slice(0, 80))}`)
    const value = raw.slice(colon + 1)
    if (filter.has(key) && filter.get(key) !== value) throw bad(`attr ${key} is given two different values`)
    filter.set(key, value)
  }
  return filter
}

export interface TimeWindow {
  from: number
  to: number
}

/** from/to in ms, inclusive; defaults: from the beginning, to now. */
export function windowParams(q: URLSearchParams, now: number): TimeWindow {
  const from = intParam(q, 'from') ?? 0
  const to = intParam(q, 'to') ?? now
  if (from > to) throw bad(`from (${from}) is after to (${to})`)
  return { from, to }
}

export function orderParam(q: URLSearchParams): 'asc' | 'desc' {
  const raw = q.get('order') ?? 'desc'
  if (raw !== 'asc' && raw !== 'desc') throw bad(`order must be asc or desc, got ${JSON.stringify(raw)}`)
  return raw
}

export function limitParam(q: URLSearchParams, cap: number, fallback = 100): number {
  const n = intParam(q, 'limit') ?? fallback
  if (n < 1) throw bad('limit must be at least 1')
  return Math.min(n, cap)
}

export type RollbackSpec =
  | { kind: 'to'; to: number }
  | { kind: 'version'; version: string }
  | { kind: 'window'; from: number; to: number; by: ReadonlySet<string> | null; attr: AttrFilter }

/** `{to}` restores the document at `to`; `{version}` a named version; `{from, to, by?}` undoes that window's changes. */
export function rollbackSpec(body: Uint8Array | null): RollbackSpec {
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(body ?? new Uint8Array()))
  } catch {
    throw bad('body must be JSON: {"to": ms} or {"from": ms, "to": ms, "by": [user]}')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('body must be a JSON object')
  const o = parsed as Record<string, unknown>
  if (o.version !== undefined) {
    if (typeof o.version !== 'string' || o.version.length === 0) throw bad('version must be the id of a named version')
    if (Object.keys(o).length > 1) throw bad('version goes alone: {"version": id}')
    return { kind: 'version', version: o.version }
  }
  const time = (name: string) => {
    const v = o[name]
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw bad(`${name} must be a non-negative integer (ms)`)
    return v
  }
  const to = time('to')
  if (o.from === undefined) {
    if (o.by !== undefined || o.attr !== undefined) throw bad('by and attr need a window: send from and to')
    return { kind: 'to', to }
  }
  const from = time('from')
  if (from > to) throw bad(`from (${from}) is after to (${to})`)
  let by: ReadonlySet<string> | null = null
  if (o.by !== undefined) {
    const list = typeof o.by === 'string' ? [o.by] : o.by
    if (!Array.isArray(list) || list.length === 0 || list.some((u) => typeof u !== 'string' || u.length === 0)) {
      throw bad('by must be a user id or a non-empty list of user ids')
    }
    by = new Set(list as string[])
  }
  let attr: AttrFilter = null
  if (o.attr !== undefined) {
    const problem = attributionProblem(o.attr)
    if (problem) throw bad(problem)
    const entries = Object.entries(o.attr as Record<string, string>)
    if (entries.length === 0) throw bad('attr must name at least one attribution')
    attr = new Map(entries)
  }
  return { kind: 'window', from, to, by, attr }
}
