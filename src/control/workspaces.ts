// Workspaces and their members. A member has one role: owner, admin or member. Membership is kept
// twice (by workspace and by user) and both halves are written in one batch.
import { AppError } from '../infra/errors.js'
import { checkId, newId } from './ids.js'
import { key, type ControlStore, type Op } from './store.js'
import { requireUser } from './users.js'

const ROLES = ['owner', 'admin', 'member'] as const
export type Role = (typeof ROLES)[number]

export interface Workspace {
  id: string
  name: string
  createdAtMs: number
}

export interface Membership {
  workspaceId: string
  userId: string
  role: Role
}

const wsKey = (id: string) => key('ws', id)
const memberKey = (ws: string, user: string) => key('member', ws, user)
const userWsKey = (user: string, ws: string) => key('userws', user, ws)

export const isRole = (r: string): r is Role => (ROLES as readonly string[]).includes(r)

export async function getWorkspace(store: ControlStore, id: string): Promise<Workspace | undefined> {
  return store.get<Workspace>(wsKey(id))
}

export async function roleOf(store: ControlStore, workspaceId: string, userId: string): Promise<Role | null> {
  const m = await store.get<Membership>(memberKey(workspaceId, userId))
  return m?.role ?? null
}

export function workspaceOps(ws: Workspace, owner: string): Op[] {
  return [
    { type: 'put', key: wsKey(ws.id), value: ws },
    ...memberOps({ workspaceId: ws.id, userId: owner, role: 'owner' }),
  ]
}

export function memberOps(m: Membership): Op[] {
  return [
    { type: 'put', key: memberKey(m.workspaceId, m.userId), value: m },
    { type: 'put', key: userWsKey(m.userId, m.workspaceId), value: m.role },
  ]
}

export async function createWorkspace(
  store: ControlStore,
  opts: { name: string; owner: string; id?: string },
  nowMs: number,
): Promise<Workspace> {
  const owner = await requireUser(store, opts.owner)
  const id = opts.id ? checkId(opts.id, 'workspace id') : newId('ws')
  if (await getWorkspace(store, id)) throw new AppError('conflict', `workspace ${id} exists`)
  const ws: Workspace = { id, name: opts.name, createdAtMs: nowMs }
  await store.batch(workspaceOps(ws, owner.id))
  return ws
}

export async function requireWorkspace(store: ControlStore, id: string): Promise<Workspace> {
  const ws = await getWorkspace(store, id)
  if (!ws) throw new AppError('not_found', `no workspace ${id}`)
  return ws
}

/** The API's gate for administering a workspace (tool registry, webhooks): 404 unknown, 403 below admin. */
export async function requireWorkspaceAdmin(store: ControlStore, workspaceId: string, user: string): Promise<void> {
  if (!(await getWorkspace(store, workspaceId))) throw new AppError('not_found', 'Workspace not found')
  const role = await roleOf(store, workspaceId, user)
  if (role !== 'owner' && role !== 'admin')
    throw new AppError('forbidden', 'Workspace owner or admin permission required')
}

export async function setMember(
  store: ControlStore,
  workspaceId: string,
  email: string,
  role: Role | 'none',
): Promise<Membership | null> {
  await requireWorkspace(store, workspaceId)
  const user = await requireUser(store, email)
  if (role === 'none') {
    await store.batch([
      { type: 'del', key: memberKey(workspaceId, user.id) },
      { type: 'del', key: userWsKey(user.id, workspaceId) },
    ])
    return null
  }
  const m: Membership = { workspaceId, userId: user.id, role }
  await store.batch(memberOps(m))
  return m
}

export async function listWorkspaces(store: ControlStore, email?: string): Promise<(Workspace & { role?: Role })[]> {
  if (!email) return (await store.list<Workspace>('ws')).map((r) => r.value)
  const user = await requireUser(store, email)
  const rows = await store.list<Role>(key('userws', user.id))
  const out: (Workspace & { role?: Role })[] = []
  for (const r of rows) {
    const ws = await getWorkspace(store, r.key.slice(r.key.lastIndexOf('/') + 1))
    if (ws) out.push({ ...ws, role: r.value })
  }
  return out
}

export async function listMembers(store: ControlStore, workspaceId: string): Promise<Membership[]> {
  await requireWorkspace(store, workspaceId)
  return (await store.list<Membership>(key('member', workspaceId))).map((r) => r.value)
}
