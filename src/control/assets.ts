// Assets: a typed item of a workspace. Access is per user: an explicit grant (view, edit or none)
// wins; otherwise workspace members get the asset's workspace default; strangers get nothing.
// Workspace owners and admins get no implicit grant: their role lets them administer (tool registry,
// collab tokens), their grant decides what they may read or write.
// A deleted asset (a `deleted/{id}` record beside it, src/lifecycle/) is not found by any reader
// here; only the lifecycle sees it, through getAssetRecord.
import { deletionKey, type DocDeletion } from '../auth/deleted-docs.js'
import { AppError } from '../infra/errors.js'
import { checkId, newId } from './ids.js'
import { key, type ControlStore, type Op } from './store.js'
import { requireUser } from './users.js'
import { requireWorkspace, roleOf } from './workspaces.js'

export type Permission = 'view' | 'edit'
export type Grant = Permission | 'none'

interface DatabaseSettings {
  provider: string
  /** Only for `postgres`. A secret: never returned by the API, never logged, hidden by admin list. */
  connectionUrl?: string
}

export interface Asset {
  id: string
  workspaceId: string
  type: string // generic_doc, database, spreadsheet, file, ...
  title: string
  /** What members of the workspace get without an explicit grant. */
  defaultAccess: Grant
  /** Stored content of non-document assets, returned by asset content. */
  text?: string
  database?: DatabaseSettings
  createdAtMs: number
}

const assetKey = (id: string) => key('asset', id)
const grantKey = (asset: string, user: string) => key('grant', asset, user)
const wsAssetKey = (ws: string, asset: string) => key('wsasset', ws, asset)

export const isGrant = (g: string): g is Grant => g === 'view' || g === 'edit' || g === 'none'

/** The asset unless it is deleted (soft or hard): what every reader of assets sees. */
export async function getAsset(store: ControlStore, id: string): Promise<Asset | undefined> {
  const [asset, deletion] = await store.getMany<Asset | DocDeletion>([assetKey(id), deletionKey(id)])
  return deletion ? undefined : (asset as Asset | undefined)
}

/** The asset record and its deletion record, if any (the lifecycle's view: a deleted asset too). */
export async function getAssetRecord(
  store: ControlStore,
  id: string,
): Promise<{ asset: Asset | undefined; deletion: DocDeletion | undefined }> {
  const [asset, deletion] = await store.getMany<Asset | DocDeletion>([assetKey(id), deletionKey(id)])
  return { asset: asset as Asset | undefined, deletion: deletion as DocDeletion | undefined }
}

/** Every record kept for the asset itself: the asset, its workspace index entry and its grants. */
export async function assetRecordKeys(store: ControlStore, asset: Asset): Promise<string[]> {
  const grants = await store.list(key('grant', asset.id))
  return [assetKey(asset.id), wsAssetKey(asset.workspaceId, asset.id), ...grants.map((g) => g.key)]
}

export async function requireAsset(store: ControlStore, id: string): Promise<Asset> {
  const a = await getAsset(store, id)
  if (!a) throw new AppError('not_found', `no asset ${id}`)
  return a
}

export function assetOps(asset: Asset, grants: Record<string, Grant> = {}): Op[] {
  return [
    { type: 'put', key: assetKey(asset.id), value: asset },
    { type: 'put', key: wsAssetKey(asset.workspaceId, asset.id), value: true },
    ...Object.entries(grants).map(([user, g]): Op => ({ type: 'put', key: grantKey(asset.id, user), value: g })),
  ]
}

export interface NewAsset {
  workspaceId: string
  type: string
  title: string
  id?: string
  defaultAccess?: Grant
  text?: string
  database?: DatabaseSettings
}

export async function createAsset(store: ControlStore, a: NewAsset, nowMs: number): Promise<Asset> {
  await requireWorkspace(store, a.workspaceId)
  const id = a.id ? checkId(a.id, 'asset id') : newId('as')
  const existing = await getAssetRecord(store, id)
  if (existing.asset || existing.deletion)
    throw new AppError('conflict', `asset ${id} exists${existing.deletion ? ' (deleted)' : ''}`)
  if (!/^[a-z][a-z0-9_]{0,63}$/.test(a.type)) throw new AppError('bad_request', 'asset type must be lower_snake_case')
  if (a.type === 'database' && !a.database?.provider)
    throw new AppError('bad_request', 'a database asset needs a provider')
  const asset: Asset = {
    id,
    workspaceId: a.workspaceId,
    type: a.type,
    title: a.title,
    defaultAccess: a.defaultAccess ?? 'none',
    createdAtMs: nowMs,
    ...(a.text !== undefined ? { text: a.text } : {}),
    ...(a.database ? { database: a.database } : {}),
  }
  await store.batch(assetOps(asset))
  return asset
}

/** The caller's permission on the asset: its grant, else the workspace default for members. */
export async function permissionOf(store: ControlStore, userId: string, asset: Asset): Promise<Permission | null> {
  const grant = await store.get<Grant>(grantKey(asset.id, userId))
  if (grant !== undefined || asset.defaultAccess === 'none') return accessOf(asset, grant, false)
  return accessOf(asset, undefined, (await roleOf(store, asset.workspaceId, userId)) !== null)
}

/** The one rule: an explicit grant wins; otherwise members get the workspace default. */
function accessOf(asset: Asset, grant: Grant | undefined, member: boolean): Permission | null {
  if (grant !== undefined) return grant === 'none' ? null : grant
  return member && asset.defaultAccess !== 'none' ? asset.defaultAccess : null
}

/**
 * The assets of a workspace `userId` may view, with their permission: permissionOf for each, in
 * three reads whatever their number (a listing or a search of thousands of assets).
 */
export async function viewableAssets(
  store: ControlStore,
  workspaceId: string,
  userId: string,
): Promise<{ asset: Asset; access: Permission }[]> {
  const assets = await listAssets(store, workspaceId)
  if (assets.length === 0) return []
  const [member, grants] = await Promise.all([
    roleOf(store, workspaceId, userId),
    store.getMany<Grant>(assets.map((a) => grantKey(a.id, userId))),
  ])
  return assets.flatMap((asset, i) => {
    const access = accessOf(asset, grants[i], member !== null)
    return access ? [{ asset, access }] : []
  })
}

export async function setGrant(
  store: ControlStore,
  assetId: string,
  email: string,
  grant: Grant | 'default',
): Promise<void> {
  await requireAsset(store, assetId)
  const user = await requireUser(store, email)
  await store.batch([
    grant === 'default'
      ? { type: 'del', key: grantKey(assetId, user.id) }
      : { type: 'put', key: grantKey(assetId, user.id), value: grant },
  ])
}

export async function listGrants(store: ControlStore, assetId: string): Promise<{ userId: string; grant: Grant }[]> {
  return (await store.list<Grant>(key('grant', assetId))).map((r) => ({
    userId: r.key.slice(r.key.lastIndexOf('/') + 1),
    grant: r.value,
  }))
}

/** The record as shown to operators: secrets removed. */
export function publicAsset(
  a: Asset,
): Omit<Asset, 'database'> & { database?: { provider: string; hasConnectionUrl: boolean } } {
  const { database, ...rest } = a
  return database
    ? { ...rest, database: { provider: database.provider, hasConnectionUrl: Boolean(database.connectionUrl) } }
    : rest
}

/** Assets (of one workspace, or all), deleted ones left out unless `withDeleted`. */
export async function listAssets(store: ControlStore, workspaceId?: string, withDeleted = false): Promise<Asset[]> {
  let assets: Asset[]
  if (!workspaceId) assets = (await store.list<Asset>('asset')).map((r) => r.value)
  else {
    const ids = (await store.list<true>(key('wsasset', workspaceId))).map((r) =>
      r.key.slice(r.key.lastIndexOf('/') + 1),
    )
    assets = (await store.getMany<Asset>(ids.map(assetKey))).filter((a): a is Asset => a !== undefined)
  }
  if (withDeleted || assets.length === 0) return assets
  const deleted = await store.getMany<DocDeletion>(assets.map((a) => deletionKey(a.id)))
  return assets.filter((_, i) => deleted[i] === undefined)
}

/** Soft-deleted assets of a workspace with their deletion records (hard-deleted ones are gone from its index). */
export async function listDeletedAssets(
  store: ControlStore,
  workspaceId: string,
): Promise<{ asset: Asset; deletion: DocDeletion }[]> {
  const assets = await listAssets(store, workspaceId, true)
  const deletions = await store.getMany<DocDeletion>(assets.map((a) => deletionKey(a.id)))
  return assets.flatMap((asset, i) => {
    const deletion = deletions[i]
    return deletion && !deletion.hard ? [{ asset, deletion }] : []
  })
}
