// Revoking capability tokens. Operators revoke by user (and document, or one token) through
// `tandem admin tokens revoke`; and every grant or membership change, whatever path writes it,
// revokes the tokens the user could no longer mint: a batch hook derives the deny-list records and
// writes them in the same batch, so a token minted before the change is refused from then on, even
// if no server was running when the change was made.
import { randomUUID } from 'node:crypto'
import { deletionKey } from '../auth/deleted-docs.js'
import { REVOKE_PREFIX, REVOKE_VERSION_KEY, revocationKey, type Revocation } from '../auth/revocation.js'
import type { Asset, Grant } from './assets.js'
import type { HookedControlStore } from './hooked-store.js'
import type { ControlStore, Op } from './store.js'
import type { Membership } from './workspaces.js'

export type NewRevocation = Omit<Revocation, 'createdAtMs'>

/** The op writing `r`, keeping the later `beforeMs` when the same scope was revoked before. */
async function revocationOp(store: ControlStore, r: NewRevocation, nowMs: number): Promise<Op> {
  const k = revocationKey(r)
  const existing = await store.get<Revocation>(k)
  const beforeMs = Math.max(existing?.beforeMs ?? 0, r.beforeMs)
  return { type: 'put', key: k, value: { ...r, beforeMs, createdAtMs: nowMs } satisfies Revocation }
}

export async function revokeTokens(store: ControlStore, r: NewRevocation, nowMs: number): Promise<Revocation> {
  const op = await revocationOp(store, r, nowMs)
  await store.batch([op])
  return (op as { value: Revocation }).value
}

/** Lifts the deny record of exactly this scope (a mistaken revocation); false if there was none. */
export async function liftRevocation(
  store: ControlStore,
  scope: Pick<Revocation, 'sub' | 'org' | 'doc' | 'jti'>,
): Promise<boolean> {
  const k = revocationKey({ ...scope, effect: 'deny' })
  if (!(await store.get<Revocation>(k))) return false
  await store.batch([{ type: 'del', key: k }])
  return true
}

export async function listRevocations(store: ControlStore, sub?: string): Promise<Revocation[]> {
  return (await store.list<Revocation>(REVOKE_PREFIX)).map((r) => r.value).filter((r) => !sub || r.sub === sub)
}

const MINTING_ROLES = new Set(['owner', 'admin'])

/**
 * The deny-list records a batch implies. A capability stays what `collab-token` would mint now:
 * only an owner or admin of the workspace with a permission on the asset gets one, `rw` only with
 * `edit`. So a membership that no longer mints revokes the user's tokens in the workspace, and a
 * permission that drops to `view` (or nothing) — by a grant, or by the asset's workspace default —
 * makes the user's tokens on that document read-only (or refused); a removed user or asset refuses
 * them all. "Before" reads the store, "after" sees this batch's own writes.
 */
async function impliedRevocations(store: ControlStore, ops: Op[], nowMs: number): Promise<NewRevocation[]> {
  const pending = new Map<string, unknown>()
  for (const op of ops) pending.set(op.key, op.type === 'put' ? op.value : undefined)
  const after = async <T>(k: string): Promise<T | undefined> =>
    pending.has(k) ? (pending.get(k) as T | undefined) : store.get<T>(k)
  const before = <T>(k: string): Promise<T | undefined> => store.get<T>(k)
  const permission = async (read: typeof before, asset: Asset, user: string): Promise<Grant> => {
    // as permissionOf in assets.ts: an explicit grant, else the workspace default for members
    const grant = await read<Grant>(`grant/${asset.id}/${user}`)
    if (grant !== undefined) return grant
    return (await read<Membership>(`member/${asset.workspaceId}/${user}`)) ? asset.defaultAccess : 'none'
  }
  const rank = { none: 0, view: 1, edit: 2 } as const
  const out: NewRevocation[] = []
  /** The revocation for a permission that dropped from `was` to `is` (none when it did not drop). */
  const dropped = (sub: string, asset: Asset, was: Grant, is: Grant): void => {
    if (rank[is] >= rank[was]) return
    const scope = { sub, org: asset.workspaceId, doc: asset.id, beforeMs: nowMs }
    if (is === 'none') out.push({ ...scope, effect: 'deny', reason: 'no permission on the asset any more' })
    else out.push({ ...scope, effect: 'readonly', reason: 'view permission on the asset' })
  }
  for (const op of ops) {
    const [kind, a, b] = op.key.split('/')
    if (!a) continue
    if (kind === 'member' && b) {
      const was = (await before<Membership>(op.key))?.role
      const is = (await after<Membership>(op.key))?.role
      if (was && MINTING_ROLES.has(was) && !(is && MINTING_ROLES.has(is))) {
        out.push({ sub: b, org: a, effect: 'deny', beforeMs: nowMs, reason: `workspace role is now ${is ?? 'none'}` })
      }
    } else if (kind === 'grant' && b) {
      const asset = await after<Asset>(`asset/${a}`)
      if (asset) dropped(b, asset, await permission(before, asset, b), await permission(after, asset, b))
    } else if (kind === 'asset' && !b) {
      // The asset's workspace default changed, or the asset went: every member who could mint.
      const was = await before<Asset>(op.key)
      if (!was) continue
      // A deleted asset's tokens are refused by the deleted-documents set (404, close 4404) for
      // as long as it stays deleted (for ever after a hard delete): no deny records on top.
      if (await after(deletionKey(a))) continue
      const is = await after<Asset>(op.key)
      if (is && rank[is.defaultAccess] >= rank[was.defaultAccess]) continue
      for (const { value: m } of await store.list<Membership>(`member/${was.workspaceId}`)) {
        if (!MINTING_ROLES.has(m.role)) continue
        dropped(
          m.userId,
          was,
          await permission(before, was, m.userId),
          is ? await permission(after, is, m.userId) : 'none',
        )
      }
    } else if (kind === 'user' && !b && op.type === 'del') {
      out.push({ sub: a, effect: 'deny', beforeMs: nowMs, reason: 'user removed' })
    }
  }
  return out
}

/** Installs the hook on a control store: implied revocations, and the version record readers poll. */
export function watchAccessChanges(store: HookedControlStore, now: () => number): void {
  store.addHook({
    async prepare(ops) {
      const nowMs = now()
      const derived = await Promise.all(
        (await impliedRevocations(store, ops, nowMs)).map((r) => revocationOp(store, r, nowMs)),
      )
      const touchesDenyList = [...ops, ...derived].some((op) => op.key.startsWith(`${REVOKE_PREFIX}/`))
      if (touchesDenyList)
        derived.push({ type: 'put', key: REVOKE_VERSION_KEY, value: { changedAtMs: nowMs, nonce: randomUUID() } })
      return derived
    },
  })
}
