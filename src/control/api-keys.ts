// API keys: `tdm_<keyId>_<secret>`. Shown once at creation; only the SHA-256 of the whole key is
// stored, under its public key id, and compared in constant time. Revoked keys stay as records. A key
// marked `agent` (or any key of a user marked so) is an agent's: its callers' edits are ruled by the
// workspace's approval mode (src/agents/).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { AppError } from '../infra/errors.js'
import { key, type ControlStore, type Op } from './store.js'
import { isAgentUser, requireUser } from './users.js'

interface ApiKeyRecord {
  id: string
  userId: string
  label: string
  hash: string // hex SHA-256 of the full key
  createdAtMs: number
  revokedAtMs: number | null
  /** an agent's key (absent on records from before the mark: a person's) */
  agent?: boolean
}

export type ApiKeyInfo = Omit<ApiKeyRecord, 'hash' | 'agent'> & { agent: boolean }

/** Who presents a key: its user, and whether the key or the user is an agent's. */
export interface KeyCaller {
  user: string
  agent: boolean
}

const infoOf = ({ hash: _h, agent, ...rest }: ApiKeyRecord): ApiKeyInfo => ({ ...rest, agent: agent === true })

const FORMAT = /^tdm_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/
const keyRecord = (id: string) => key('apikey', id)

const sha256 = (s: string) => createHash('sha256').update(s).digest()

export function newApiKey(): { id: string; secret: string } {
  const id = randomBytes(8).toString('hex')
  return { id, secret: `tdm_${id}_${randomBytes(32).toString('base64url')}` }
}

/** Ops storing `secret` (a key in our format) for `userId`. Used directly by the demo seed. */
export function apiKeyOps(
  userId: string,
  label: string,
  apiKey: { id: string; secret: string },
  nowMs: number,
  agent = false,
): { info: ApiKeyInfo; ops: Op[] } {
  const rec: ApiKeyRecord = {
    id: apiKey.id,
    userId,
    label,
    hash: sha256(apiKey.secret).toString('hex'),
    createdAtMs: nowMs,
    revokedAtMs: null,
    ...(agent ? { agent } : {}),
  }
  return { info: infoOf(rec), ops: [{ type: 'put', key: keyRecord(apiKey.id), value: rec }] }
}

/** `agent`: the key is an agent's (its user may be a person who also has keys of their own). */
export async function createApiKey(
  store: ControlStore,
  email: string,
  label: string,
  nowMs: number,
  agent = false,
): Promise<{ key: string; info: ApiKeyInfo }> {
  const user = await requireUser(store, email)
  const k = newApiKey()
  const { info, ops } = apiKeyOps(user.id, label, k, nowMs, agent)
  await store.batch(ops)
  return { key: k.secret, info }
}

/** Who a presented key belongs to, or null (unknown, malformed, revoked). */
export async function authenticateApiKey(
  store: ControlStore,
  presented: string | undefined,
): Promise<KeyCaller | null> {
  if (!presented) return null
  const m = FORMAT.exec(presented)
  if (!m) return null
  const rec = await store.get<ApiKeyRecord>(keyRecord(m[1]!))
  if (!rec || rec.revokedAtMs !== null) return null
  const stored = Buffer.from(rec.hash, 'hex')
  const given = sha256(presented)
  if (stored.length !== given.length || !timingSafeEqual(stored, given)) return null
  return { user: rec.userId, agent: rec.agent === true || (await isAgentUser(store, rec.userId)) }
}

export async function revokeApiKey(store: ControlStore, id: string, nowMs: number): Promise<ApiKeyInfo> {
  const rec = await store.get<ApiKeyRecord>(keyRecord(id))
  if (!rec) throw new AppError('not_found', `no api key ${id}`)
  const next = { ...rec, revokedAtMs: rec.revokedAtMs ?? nowMs }
  await store.batch([{ type: 'put', key: keyRecord(id), value: next }])
  return infoOf(next)
}

export async function listApiKeys(store: ControlStore, email?: string): Promise<ApiKeyInfo[]> {
  const recs = (await store.list<ApiKeyRecord>('apikey')).map((r) => r.value)
  const userId = email ? (await requireUser(store, email)).id : undefined
  return recs.filter((r) => !userId || r.userId === userId).map(infoOf)
}
