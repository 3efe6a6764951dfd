// Users: the id is the (lower-cased) e-mail address.
import { AppError } from '../infra/errors.js'
import { normalizeEmail } from './ids.js'
import { key, type ControlStore, type Op } from './store.js'

export interface User {
  id: string
  name: string
  createdAtMs: number
}

const userKey = (id: string) => key('user', id)

async function getUser(store: ControlStore, id: string): Promise<User | undefined> {
  return store.get<User>(userKey(id))
}

/** The ops creating a user, or none if it exists (creation is idempotent). */
export async function userOps(store: ControlStore, email: string, name: string | undefined, nowMs: number): Promise<{ user: User; ops: Op[] }> {
  const id = normalizeEmail(email)
  const existing = await getUser(store, id)
  if (existing) return { user: existing, ops: [] }
  const user: User = { id, name: name ?? id.split('@')[0]!, createdAtMs: nowMs }
  return { user, ops: [{ type: 'put', key: userKey(id), value: user }] }
}

export async function createUser(store: ControlStore, email: string, name: string | undefined, nowMs: number): Promise<User> {
  const { user, ops } = await userOps(store, email, name, nowMs)
  await store.batch(ops)
  return user
}

export async function requireUser(store: ControlStore, email: string): Promise<User> {
  const user = await getUser(store, normalizeEmail(email))
  if (!user) throw new AppError('not_found', `no user ${email}`)
  return user
}

export async function listUsers(store: ControlStore): Promise<User[]> {
  return (await store.list<User>('user')).map((r) => r.value)
}
