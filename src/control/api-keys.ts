// API keys: `tdm_<keyId>_<secret>`. Shown once at creation; only the SHA-256 of the whole key is
// stored, under its public key id, and compared in constant time. Revoked keys stay as records.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { AppError } from '../infra/errors.js'
import { key, type ControlStore, type Op } from './store.js'
import { requireUser } from './users.js'

interface ApiKeyRecord {
  id: string
  userId: string
  label: string
  hash: string // hex SHA-256 of the full key
  createdAtMs: number
  revokedAtMs: number | null
}

export type ApiKeyInfo = Omit<ApiKeyRecord, 'hash'>

const FORMAT = /^tdm_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/
const keyRecord = (id: string) => key('apikey', id)

const sha256 = (s: string) => createHash('sha256').update(s).digest()

export function newApiKey(): { id: string; secret: string } {
  const id = randomBytes(8).toString('hex')
  return { id, secret: `tdm_${id}_${randomBytes(32).toString('base64url')}` }
}

/** Ops storing `secret` (a key in our format) for `userId`. Used directly by the demo seed. */
export function apiKeyOps(userId: string, label: string, apiKey: { id: string; secret: string }, nowMs: number): { info: ApiKeyInfo; ops: Op[] } {
  const rec: ApiKeyRecord = { id: apiKey.id, userId, label, hash: sha256(apiKey.secret).toString('hex'), createdAtMs: nowMs, revokedAtMs: null }
  const { hash: _h, ...info } = rec
  return { info, ops: [{ type: 'put', key: keyRecord(apiKey.id), value: rec }] }
}

export async function createApiKey(store: ControlStore, email: string, label: string, nowMs: number): Promise<{ key: string; info: ApiKeyInfo }> {
  const user = await requireUser(store, email)
  const k = newApiKey()
  const { info, ops } = apiKeyOps(user.id, label, k, nowMs)
  await store.batch(ops)
  return { key: k.secret, info }
}

/** The user id a presented key belongs to, or null (unknown, malformed, revoked). */
export async function authenticateApiKey(store: ControlStore, presented: string | undefined): Promise<string | null> {
  if (!presented) return null
  const m = FORMAT.exec(presented)
  if (!m) return null
  const rec = await store.get<ApiKeyRecord>(keyRecord(m[1]!))
  if (!rec || rec.revokedAtMs !== null) return null
  const stored = Buffer.from(rec.hash, 'hex')
  const given = sha256(presented)
  return stored.length === given.length && timingSafeEqual(stored, given) ? rec.userId : null
}

export async function revokeApiKey(store: ControlStore, id: string, nowMs: number): Promise<ApiKeyInfo> {
  const rec = await store.get<ApiKeyRecord>(keyRecord(id))
  if (!rec) throw new AppError('not_found', `no api key ${id}`)
  const next = { ...rec, revokedAtMs: rec.revokedAtMs ?? nowMs }
  await store.batch([{ type: 'put', key: keyRecord(id), value: next }])
  const { hash: _h, ...info } = next
  return info
}

export async function listApiKeys(store: ControlStore, email?: string): Promise<ApiKeyInfo[]> {
  const recs = (await store.list<ApiKeyRecord>('apikey')).map((r) => r.value)
  const userId = email ? (await requireUser(store, email)).id : undefined
  return recs.filter((r) => !userId || r.userId === userId).map(({ hash: _h, ...info }) => info)
}
