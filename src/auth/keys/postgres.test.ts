// Signing keys in PostgreSQL: processes starting together agree on one generated key; a rotation
// made elsewhere is picked up by a ring on the first token with the new kid; unknown kids are
// refused without the ring losing its keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPostgres, type PgServer } from '../../../test/helpers/postgres.js'
import { applySchemaMigrations } from '../../pg/schema.js'
import { createPgPool, type PgPool } from '../../pg/pool.js'
import { mintToken, TokenRefused, verifyToken } from '../capability.js'
import { generateSigningJwk, keyRingFromJwks } from './ring.js'
import { loadPgKeyRing, readPgKeys, rotatePgKeys } from './postgres.js'

let pgs: PgServer
const pools: PgPool[] = []
beforeAll(async () => {
  pgs = await startPostgres()
})
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()))
  await pgs?.close()
})

async function pool(schema: string): Promise<PgPool> {
  const p = createPgPool({ url: pgs.url, schema, poolSize: 2 })
  pools.push(p)
  await applySchemaMigrations(p, schema)
  return p
}

describe('signing keys in PostgreSQL', () => {
  it('five processes starting at once generate one key and all sign with it', async () => {
    const ps = await Promise.all(Array.from({ length: 5 }, () => pool('keys_race')))
    const rings = await Promise.all(ps.map((p) => loadPgKeyRing(p)))
    expect(new Set(rings.map((r) => r.signingKid)).size).toBe(1)
    expect(await readPgKeys(ps[0]!)).toHaveLength(1)
  })

  it('a ring verifies a token signed with a key rotated in after it loaded, and then signs with that key', async () => {
    const [a, b] = [await pool('keys_rotate'), await pool('keys_rotate')]
    const ring = await loadPgKeyRing(a)
    const oldKid = ring.signingKid
    const newKid = await rotatePgKeys(b, 'keys_rotate')
    const other = await loadPgKeyRing(b)
    const { token } = await mintToken(other, { org: 'o', doc: 'd', sub: 's', acc: 'r', ttlSec: 60 })
    expect(ring.publicKeys.has(newKid)).toBe(false)
    expect(await verifyToken(ring, token)).toMatchObject({ org: 'o', doc: 'd' })
    expect(ring.signingKid).toBe(newKid)
    expect(ring.publicKeys.has(oldKid)).toBe(true)
  })

  it('tokens of unknown keys are refused, and reloads for them are spaced out', async () => {
    const p = await pool('keys_unknown')
    const ring = await loadPgKeyRing(p)
    const stranger = await keyRingFromJwks([await generateSigningJwk()], 'test')
    const { token } = await mintToken(stranger, { org: 'o', doc: 'd', sub: 's', acc: 'r', ttlSec: 60 })
    const started = Date.now()
    const reason = (e: unknown) => (e instanceof TokenRefused ? e.reason : String(e))
    const results = await Promise.all(Array.from({ length: 3 }, () => verifyToken(ring, token).catch(reason)))
    expect(results).toEqual(['unknown signing key', 'unknown signing key', 'unknown signing key'])
    expect(await verifyToken(ring, token).catch(reason)).toBe('unknown signing key')
    // the first reload is immediate; the ones asked for after it wait their turn (>= 1 s apart)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(ring.publicKeys.size).toBe(1)
  })
})
