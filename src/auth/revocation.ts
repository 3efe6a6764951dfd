// The token deny-list: records in the control plane (`revoke/...`), read into memory so checking a
// capability is a map lookup, never a store read. The cache (polled-records.ts) re-reads when this
// process writes a revocation and every `revocation-refresh-ms`, so a record written by another
// process sharing the control plane takes effect within one period. A version record
// (`revokemeta/version`, rewritten with every revocation) makes the periodic refresh one `get`
// while nothing changed.
import { TOKEN_REVOKED, TokenRefused, type Capability } from './capability.js'
import { PolledRecords, type RecordSource, type VersionPoll } from './polled-records.js'

/** `deny` refuses matching tokens; `readonly` turns matching `rw` tokens into `r`. */
export type RevocationEffect = 'deny' | 'readonly'

export interface Revocation {
  sub: string
  org?: string
  doc?: string
  /** One token. Without it, tokens issued before `beforeMs` match. */
  jti?: string
  effect: RevocationEffect
  beforeMs: number
  createdAtMs: number
  reason: string
}

export const REVOKE_PREFIX = 'revoke'
export const REVOKE_VERSION_KEY = 'revokemeta/version'

const part = (s: string) => encodeURIComponent(s)

/** One record per (user, scope, effect): a later revocation of the same scope moves `beforeMs`. */
export function revocationKey(r: Pick<Revocation, 'sub' | 'org' | 'doc' | 'jti' | 'effect'>): string {
  const scope =
    [r.org && `org:${part(r.org)}`, r.doc && `doc:${part(r.doc)}`, r.jti && `jti:${part(r.jti)}`]
      .filter(Boolean)
      .join(',') || 'all'
  return `${REVOKE_PREFIX}/${part(r.sub)}/${scope}/${r.effect}`
}

export function matches(r: Revocation, cap: Capability): boolean {
  if (r.sub !== cap.sub) return false
  if (r.org !== undefined && r.org !== cap.org) return false
  if (r.doc !== undefined && r.doc !== cap.doc) return false
  // `iat` has second resolution: a token of the revocation's own second counts as before it.
  return r.jti !== undefined ? r.jti === cap.jti : (cap.iat ?? 0) * 1000 < r.beforeMs
}

/** What the control plane offers the cache: the get/list half of the control store's API. */
export type RevocationSource = RecordSource

export class RevocationList {
  private bySub = new Map<string, Revocation[]>()
  private readonly records: PolledRecords<Revocation>

  constructor(source: RevocationSource) {
    this.records = new PolledRecords<Revocation>(source, REVOKE_PREFIX, REVOKE_VERSION_KEY, (rows) => {
      const bySub = new Map<string, Revocation[]>()
      for (const r of rows) {
        const list = bySub.get(r.sub)
        if (list) list.push(r)
        else bySub.set(r.sub, [r])
      }
      this.bySub = bySub
    })
  }

  /** The strongest revocation that applies to `cap`, if any. */
  effectFor(cap: Capability): RevocationEffect | null {
    let effect: RevocationEffect | null = null
    for (const r of this.bySub.get(cap.sub) ?? []) {
      if (!matches(r, cap)) continue
      if (r.effect === 'deny') return 'deny'
      effect = 'readonly'
    }
    return effect
  }

  /** The capability as the deny-list leaves it: refused (TokenRefused), made read-only, or as is. */
  apply(cap: Capability): Capability {
    const effect = this.effectFor(cap)
    if (effect === 'deny') throw new TokenRefused('invalid_token', TOKEN_REVOKED)
    if (effect === 'readonly' && cap.acc === 'rw') return { ...cap, acc: 'r' }
    return cap
  }

  /** Called with the records that are new or changed after each refresh. */
  onChange(fn: (changed: Revocation[]) => void): () => void {
    return this.records.onChange((changed) => fn(changed))
  }

  /** Re-reads the deny-list (only when the version record moved, unless `force`); see PolledRecords. */
  refresh(force = false): Promise<Revocation[]> {
    return this.records.refresh(force)
  }

  /** Loads once, then is checked by `poll` every period (errors are reported, the last list stays). */
  start(poll: VersionPoll, onError: (err: unknown) => void): Promise<void> {
    return this.records.start(poll, onError)
  }

  /** Stops the periodic refresh and waits for one in flight (the store may close next). */
  stop(): Promise<void> {
    return this.records.stop()
  }

  get size(): number {
    return this.records.size
  }
}
