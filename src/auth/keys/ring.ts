// Signing keys for capability tokens: Ed25519 JWKs with a kid. The first key signs; every key
// verifies, so a rotated-out key keeps its tokens valid until it is removed from the set.
import { randomUUID, type webcrypto } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import type { JWK } from 'jose'
import { exportJWK } from 'jose/key/export'
import { generateKeyPair } from 'jose/key/generate/keypair'
import { importJWK } from 'jose/key/import'
import { dataDirPath } from '../../infra/data-dir.js'

type CryptoKey = webcrypto.CryptoKey

export interface KeyRing {
  signingKid: string
  signingKey: CryptoKey
  /** kid -> public key, for verification. */
  publicKeys: Map<string, CryptoKey>
  /** Public JWKS served at /.well-known/jwks.json. */
  jwks: { keys: JWK[] }
  /**
   * Re-reads a key set shared with other processes (PostgreSQL), in place; verification calls it
   * on an unknown kid. Absent for a data dir's or a file's keys (SIGHUP reloads those).
   */
  refresh?: () => Promise<void>
}

export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
  const jwk = await exportJWK(privateKey)
  return { ...jwk, kid: randomUUID(), alg: 'EdDSA', use: 'sig' }
}

function checkJwk(jwk: JWK, where: string): void {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string' || typeof jwk.x !== 'string') {
    throw new Error(`${where}: every key must be a private Ed25519 JWK (kty OKP, crv Ed25519, d, x)`)
  }
  if (!jwk.kid) throw new Error(`${where}: every key needs a kid`)
}

export async function keyRingFromJwks(privateJwks: JWK[], where: string): Promise<KeyRing> {
  if (privateJwks.length === 0) throw new Error(`${where}: no keys`)
  const publicKeys = new Map<string, CryptoKey>()
  const pub: JWK[] = []
  let signingKey: CryptoKey | undefined
  for (const jwk of privateJwks) {
    checkJwk(jwk, where)
    const { d: _d, ...publicJwk } = jwk
    const pubKey = (await importJWK({ ...publicJwk, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey
    publicKeys.set(jwk.kid!, pubKey)
    pub.push({ kty: 'OKP', crv: 'Ed25519', x: jwk.x!, kid: jwk.kid!, alg: 'EdDSA', use: 'sig' })
    if (!signingKey) signingKey = (await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA')) as CryptoKey
  }
  return { signingKid: privateJwks[0]!.kid!, signingKey: signingKey!, publicKeys, jwks: { keys: pub } }
}

async function readJwksFile(path: string): Promise<JWK[]> {
  const parsed = JSON.parse(await readFile(path, 'utf8')) as { keys?: JWK[] }
  if (!Array.isArray(parsed.keys)) throw new Error(`${path}: expected a JWKS ({"keys": [...]})`)
  return parsed.keys
}

/** Keys from the configured JWKS file, else from the data dir, generated there on first start. */
export async function loadKeyRing(dataDir: string, signingKeysFile: string): Promise<KeyRing> {
  if (signingKeysFile) return keyRingFromJwks(await readJwksFile(signingKeysFile), signingKeysFile)
  const path = dataDirPath(dataDir, 'signingKeys')
  try {
    return await keyRingFromJwks(await readJwksFile(path), path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  await mkdir(dataDir, { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, JSON.stringify({ keys: [await generateSigningJwk()] }, null, 2), { mode: 0o600 })
  await rename(tmp, path)
  return keyRingFromJwks(await readJwksFile(path), path)
}

/**
 * Re-reads the key set into an existing ring, in place, so every holder sees the new keys
 * (a running server does this on SIGHUP after `tandem keys rotate`).
 */
export async function reloadKeyRing(ring: KeyRing, dataDir: string, signingKeysFile: string): Promise<void> {
  Object.assign(ring, await loadKeyRing(dataDir, signingKeysFile))
}

/** Rotation: a new key signs from now on; the old ones stay for verification. Returns the new kid. */
export async function rotateKeys(dataDir: string, keepOld = 2): Promise<string> {
  const path = dataDirPath(dataDir, 'signingKeys')
  const existing = await readJwksFile(path)
  const fresh = await generateSigningJwk()
  const tmp = `${path}.${process.pid}.tmp`
  await writeFile(tmp, JSON.stringify({ keys: [fresh, ...existing.slice(0, keepOld)] }, null, 2), { mode: 0o600 })
  await rename(tmp, path)
  return fresh.kid!
}
