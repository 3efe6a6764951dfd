// API test helpers: an HTTP client for the api listener and a small world (users with keys, a
// workspace with owner/admin/member, assets) created through the control plane of a real server.
import { createApiKey } from '../../src/control/api-keys.js'
import { createAsset, setGrant, type Asset, type Grant } from '../../src/control/assets.js'
import { createUser } from '../../src/control/users.js'
import { createWorkspace, setMember } from '../../src/control/workspaces.js'
import { runAdmin } from '../../src/cli/admin.js'
import type { Config } from '../../src/infra/config.js'
import type { Harness } from '../helpers/tandem.js'

export interface Reply {
  status: number
  body: any // assertions read arbitrary JSON
  headers: Headers
}

export async function call(
  h: Harness,
  method: string,
  path: string,
  o: { key?: string; body?: string | object; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers }
  if (o.key) headers['x-api-key'] = o.key
  let body: string | undefined
  if (o.body !== undefined) {
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body)
    headers['content-type'] ??= 'application/json'
  }
  const res = await fetch(`http://127.0.0.1:${h.server.apiPort}${path}`, { method, headers, body })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON (metrics): keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers }
}

export const ROLES = ['owner', 'admin', 'member', 'stranger'] as const
type RoleName = (typeof ROLES)[number]

export interface World {
  workspaceId: string
  keys: Record<RoleName, string>
  users: Record<RoleName, string>
  doc: Asset
}

/** One workspace with an owner, an admin, a member, plus a stranger; one generic_doc. */
export async function makeWorld(h: Harness, tag: string): Promise<World> {
  const { store } = h.server.deps.control
  const now = Date.now()
  const users = Object.fromEntries(ROLES.map((r) => [r, `${r}-${tag}@example.com`])) as Record<RoleName, string>
  const keys = {} as Record<RoleName, string>
  for (const r of ROLES) {
    await createUser(store, users[r], undefined, now)
    keys[r] = (await createApiKey(store, users[r], 'test', now)).key
  }
  const ws = await createWorkspace(store, { name: `ws ${tag}`, owner: users.owner }, now)
  await setMember(store, ws.id, users.admin, 'admin')
  await setMember(store, ws.id, users.member, 'member')
  const doc = await createAsset(store, { workspaceId: ws.id, type: 'generic_doc', title: `doc ${tag}` }, now)
  return { workspaceId: ws.id, keys, users, doc }
}

export async function grant(h: Harness, assetId: string, user: string, g: Grant | 'default'): Promise<void> {
  await setGrant(h.server.deps.control.store, assetId, user, g)
}

export async function asset(h: Harness, a: Parameters<typeof createAsset>[1]): Promise<Asset> {
  return createAsset(h.server.deps.control.store, a, Date.now())
}

/**
 * `tandem admin ARGS` run in this process (through a running server's endpoint when there is one): exit code and
 * output.
 */
export async function admin(config: Config, ...args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = []
  const code = await runAdmin(args, config, (s) => lines.push(s))
  return { code, out: lines.join('\n') }
}
