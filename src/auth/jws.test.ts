import { KeyObject, sign, type webcrypto } from 'node:crypto'
import { generateKeyPair } from 'jose/key/generate/keypair'
import { beforeAll, describe, expect, it } from 'vitest'
import { JwsRefused, decodeJws, verifyJwt, type JwtCheck } from './jws.js'

type CryptoKey = webcrypto.CryptoKey
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')
const NOW = 1_800_000_000
const check: JwtCheck = { audience: 'tandem-collab', required: ['sub', 'exp', 'iat'], nowSec: NOW }
const claims = { sub: 'ann', aud: 'tandem-collab', iat: NOW - 10, exp: NOW + 60, org: 'o', doc: 'd', acc: 'rw' }

let publicKey: CryptoKey
let privateKey: CryptoKey
beforeAll(async () => {
  ;({ publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' }))
})

/** A compact JWS over exactly these segments, signed with the test key. */
function signed(header: unknown, payload: unknown, key: CryptoKey = privateKey): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign(null, Buffer.from(input), KeyObject.from(key)).toString('base64url')}`
}

function refusal(token: string, key: CryptoKey = publicKey, at: JwtCheck = check): string {
  try {
    verifyJwt(decodeJws(token), key, at)
  } catch (err) {
    if (err instanceof JwsRefused) return err.message
    throw err
  }
  return 'accepted'
}

const header = { alg: 'EdDSA', kid: 'k1', typ: 'JWT' }

describe('compact JWS verification (EdDSA only)', () => {
  it('accepts a well-formed token and answers its claims', () => {
    expect(verifyJwt(decodeJws(signed(header, claims)), publicKey, check)).toEqual(claims)
    expect(refusal(signed(header, { ...claims, aud: ['other', 'tandem-collab'] }))).toBe('accepted')
  })

  it('refuses parts that are not strict unpadded base64url, whatever the signature', () => {
    const good = signed(header, claims)
    const [h, p, s] = good.split('.')
    for (const bad of [
      `${h}=.${p}.${s}`,
      `${h}.${p}.${s}=`,
      `${h}.${p!.replace(/[A-Za-z]/, '+')}.${s}`,
      `${h} .${p}.${s}`,
      `${h}.${p}.`,
      `.${p}.${s}`,
      `${h}.${p}`,
      `${good}.${s}`,
    ]) {
      expect(refusal(bad)).toBe('malformed token')
    }
  })

  it('refuses a header that is not a JSON object, or not UTF-8', () => {
    expect(refusal(signed([header], claims))).toBe('malformed token')
    expect(refusal(signed('"EdDSA"', claims))).toBe('malformed token')
    const notUtf8 = Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')
    expect(refusal(`${notUtf8}.${b64(claims)}.${b64('x')}`)).toBe('malformed token')
  })

  it('pins the algorithm: none, HMAC and other curves are refused before any key is used', () => {
    for (const alg of ['none', 'HS256', 'ES256', 'RS256', 'eddsa', undefined]) {
      expect(refusal(signed({ ...header, alg }, claims))).toBe('token algorithm not allowed')
    }
  })

  it('refuses critical header extensions and unencoded payloads it does not implement', () => {
    expect(refusal(signed({ ...header, crit: ['exp'] }, claims))).toBe('malformed token')
    expect(refusal(signed({ ...header, b64: false }, claims))).toBe('malformed token')
  })

  it('refuses a signature by another key, of another token, truncated or too long', async () => {
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' })
    expect(refusal(signed(header, claims, other.privateKey))).toBe('bad token signature')
    const [h, p] = signed(header, claims).split('.')
    const [, , foreignSig] = signed(header, { ...claims, acc: 'r' }).split('.')
    expect(refusal(`${h}.${p}.${foreignSig}`)).toBe('bad token signature')
    const sig = Buffer.from(signed(header, claims).split('.')[2]!, 'base64url')
    expect(refusal(`${h}.${p}.${sig.subarray(0, 63).toString('base64url')}`)).toBe('bad token signature')
    expect(refusal(`${h}.${p}.${Buffer.concat([sig, Buffer.from([0])]).toString('base64url')}`)).toBe(
      'bad token signature',
    )
  })

  it('uses only Ed25519 public keys: a ring entry of another kind verifies nothing', async () => {
    const ec = await generateKeyPair('ES256')
    expect(refusal(signed(header, claims), ec.publicKey)).toBe('unknown signing key')
  })

  it('refuses a signed payload that is not a JSON object', () => {
    expect(refusal(signed(header, [claims]))).toBe('malformed token')
    expect(refusal(signed(header, 'null'))).toBe('malformed token')
  })

  it('checks audience, required claims and their types, nbf, and expiry last', () => {
    for (const name of ['sub', 'exp', 'iat', 'aud']) {
      const { [name as keyof typeof claims]: _drop, ...rest } = claims
      expect(refusal(signed(header, rest))).toBe(`token claim "${name}" invalid`)
    }
    expect(refusal(signed(header, { ...claims, aud: 'other' }))).toBe('token claim "aud" invalid')
    expect(refusal(signed(header, { ...claims, aud: ['other'] }))).toBe('token claim "aud" invalid')
    expect(refusal(signed(header, { ...claims, exp: String(NOW + 60) }))).toBe('token claim "exp" invalid')
    expect(refusal(signed(header, { ...claims, iat: null }))).toBe('token claim "iat" invalid')
    expect(refusal(signed(header, { ...claims, nbf: NOW + 1 }))).toBe('token claim "nbf" invalid')
    expect(refusal(signed(header, { ...claims, nbf: NOW }))).toBe('accepted')
    // exp is exclusive: a token is expired at its exp second
    expect(refusal(signed(header, { ...claims, exp: NOW }))).toBe('token expired')
    expect(refusal(signed(header, { ...claims, exp: NOW + 1 }))).toBe('accepted')
    // an expired token with another fault is refused for that fault
    expect(refusal(signed(header, { ...claims, exp: NOW - 5, aud: 'other' }))).toBe('token claim "aud" invalid')
  })

  it('hands back the claims of a token whose only fault is expiry', () => {
    try {
      verifyJwt(decodeJws(signed(header, { ...claims, exp: NOW - 5 })), publicKey, check)
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(JwsRefused)
      expect((err as JwsRefused).expiredClaims).toMatchObject({ sub: 'ann', exp: NOW - 5 })
    }
  })
})
