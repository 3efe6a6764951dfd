import { describe, expect, it } from 'vitest'
import { AppError } from '../infra/errors.js'
import { checkDocument, mintToken, verifyToken } from './capability.js'
import { generateSigningJwk, keyRingFromJwks } from './keys/ring.js'

describe('capability tokens', () => {
  it('round-trips every claim, with branch main by default', async () => {
    const keys = await keyRingFromJwks([await generateSigningJwk()], 'test')
    const { token, expiresAtMs } = await mintToken(
      keys,
      { org: 'o', doc: 'd', sub: 'ann@x', acc: 'r', asset: 'a1', ttlSec: 60 },
      1_700_000_000_000,
    )
    expect(expiresAtMs).toBe(1_700_000_060_000)
    const cap = await verifyToken(keys, token, 1_700_000_001_000)
    expect(cap).toMatchObject({
      org: 'o',
      doc: 'd',
      sub: 'ann@x',
      acc: 'r',
      asset: 'a1',
      branch: 'main',
      exp: 1_700_000_060,
    })
    expect(cap.jti).toMatch(/[0-9a-f-]{36}/)
  })

  it('keeps verifying tokens of a rotated-out key while it stays in the ring', async () => {
    const oldJwk = await generateSigningJwk()
    const before = await keyRingFromJwks([oldJwk], 'test')
    const { token } = await mintToken(before, { org: 'o', doc: 'd', sub: 'u', acc: 'rw', ttlSec: 60 })
    const after = await keyRingFromJwks([await generateSigningJwk(), oldJwk], 'test')
    expect(after.signingKid).not.toBe(oldJwk.kid)
    await expect(verifyToken(after, token)).resolves.toMatchObject({ sub: 'u' })
    const removed = await keyRingFromJwks([await generateSigningJwk()], 'test')
    await expect(verifyToken(removed, token)).rejects.toMatchObject({ code: 'invalid_token' })
  })

  it('reports expiry as token_expired', async () => {
    const keys = await keyRingFromJwks([await generateSigningJwk()], 'test')
    const { token } = await mintToken(keys, { org: 'o', doc: 'd', sub: 'u', acc: 'rw', ttlSec: 10 }, 1_000_000)
    await expect(verifyToken(keys, token, 1_000_000 + 20_000)).rejects.toMatchObject({
      code: 'token_expired',
      status: 401,
    })
  })

  it('refuses private keys that are not Ed25519 JWKs with a kid', async () => {
    const jwk = await generateSigningJwk()
    await expect(keyRingFromJwks([{ ...jwk, kid: undefined }], 'f')).rejects.toThrow(/kid/)
    await expect(keyRingFromJwks([{ ...jwk, crv: 'X25519' }], 'f')).rejects.toThrow(/Ed25519/)
    await expect(keyRingFromJwks([], 'f')).rejects.toThrow(/no keys/)
  })

  it('a token opens only the document it names', () => {
    const cap = { org: 'o', doc: 'd', sub: 'u', acc: 'rw' as const, branch: 'main', exp: 0, jti: '' }
    expect(() => checkDocument(cap, 'o', 'd')).not.toThrow()
    expect(() => checkDocument(cap, 'o', 'e')).toThrow(AppError)
  })
})

describe('key rotation on disk', () => {
  it('rotate adds a signing key, keeps the old one, and a reloaded ring verifies both generations', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { loadKeyRing, reloadKeyRing, rotateKeys } = await import('./keys/ring.js')
    const dir = await mkdtemp(join(tmpdir(), 'tandem-keys-'))
    try {
      const ring = await loadKeyRing(dir, '')
      const oldKid = ring.signingKid
      const { token: oldToken } = await mintToken(ring, { org: 'o', doc: 'd', sub: 'u', acc: 'rw', ttlSec: 60 })
      const newKid = await rotateKeys(dir)
      await reloadKeyRing(ring, dir, '')
      expect(ring.signingKid).toBe(newKid)
      expect(ring.jwks.keys.map((k) => k.kid)).toEqual([newKid, oldKid])
      await expect(verifyToken(ring, oldToken)).resolves.toMatchObject({ sub: 'u' })
      const { token } = await mintToken(ring, { org: 'o', doc: 'd', sub: 'v', acc: 'rw', ttlSec: 60 })
      expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid).toBe(newKid)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
