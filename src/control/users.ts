// Users: the id is the (lower-cased) e-mail address. A user marked `agent` is an agent whatever key
// it presents: the approval mode rules its edits (src/agents/).
import { AppError } from '../infra/errors.js'
import { normalizeEmail } from './ids.js'
import { key, type ControlStore, type Op } from './store.js'

export interface User {
  id: string
  name: string
  createdAtMs: number
  /** an agent's account (absent on records from before the mark: a person) */
  agent?: boolean
}

const userKey = (id: string) => key('user', id)

async function getUser(store: ControlStore, id: string): Promise<User | undefined> {
  return store.get<User>(userKey(id))
}

/** The ops creating a user, or none if it exists (creation is idempotent). */
export async function userOps(
  store: ControlStore,
  email: string,
  name: string | undefined,
  nowMs: number,
  agent = false,
): Promise<{ user: User; ops: Op[] }> {
  const id = normalizeEmail(email)
  const existing = await getUser(store, id)
  if (existing) return { user: existing, ops: [] }
  const user: User = { id, name: name ?? id.split('@')[0]!, createdAtMs: nowMs, ...(agent ? { agent } : {}) }
  return { user, ops: [{ type: 'put', key: userKey(id), value: user }] }
}

/** Creates a user (idempotent: an existing one is answered as it is; `users set` changes the mark). */
export async function createUser(
  store: ControlStore,
  email: string,
  name: string | undefined,
  nowMs: number,
  agent = false,
): Promise<User> {
  const { user, ops } = await userOps(store, email, name, nowMs, agent)
  await store.batch(ops)
  return user
}

/** Marks a user as an agent, or as a person again. */
export async function setUserAgent(store: ControlStore, email: string, agent: boolean): Promise<User> {
  const { agent: _was, ...rest } = await requireUser(store, email)
  const user: User = { ...rest, ...(agent ? { agent } : {}) }
  await store.batch([{ type: 'put', key: userKey(user.id), value: user }])
  return user
}

/** Whether a user is marked as an agent (an unknown user is not). */
export async function isAgentUser(store: ControlStore, id: string): Promise<boolean> {
  return (await getUser(store, id))?.agent === true
}

export async function requireUser(store: ControlStore, email: string): Promise<User> {
  const user = await getUser(store, normalizeEmail(email))
  if (!user) throw new AppError('not_found', `no user ${email}`)
  return user
}

export async function listUsers(store: ControlStore): Promise<User[]> {
  return (await store.list<User>('user')).map((r) => r.value)
}
