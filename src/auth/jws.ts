// Compact JWS verification for capability tokens, synchronous, so the collab listener can verify
// and upgrade inside uWS's upgrade handler: an upgrade after an await has to go through cork(),
// which in this uWS build closes a fresh socket now and then (docs/perf/versus-peers.md, "1006").
// One algorithm only, EdDSA over Ed25519 (RFC 8037), checked with node:crypto against the ring's
// keys; jose still signs and imports the keys. The claim checks are the ones jose's jwtVerify made
// for us (audience, required claims, nbf, exp last), so an expired token is otherwise sound.
import { KeyObject, verify, type webcrypto } from 'node:crypto'

export const ALGORITHM = 'EdDSA'

/** Why a token is refused, worded for the log (callers map it to `invalid` or `expired`). */
export class JwsRefused extends Error {
  constructor(
    message: string,
    /** the claims of a token whose only fault is expiry */
    readonly expiredClaims?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export interface JwtCheck {
  audience: string
  /** claims that must be present */
  required: string[]
  nowSec: number
}

/** base64url without padding, as RFC 7515 requires (Buffer's decoder would skip other characters) */
const SEGMENT = /^[A-Za-z0-9_-]+$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

function decodeObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(utf8.decode(Buffer.from(segment, 'base64url')))
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

export interface DecodedJws {
  header: Record<string, unknown>
  /** `header.payload`, what the signature covers */
  signingInput: string
  payload: string
  signature: Buffer
}

/** Splits and decodes a compact JWS; refuses anything but three strict base64url parts and a JSON header. */
export function decodeJws(token: string): DecodedJws {
  const parts = token.split('.')
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) throw new JwsRefused('malformed token')
  const header = decodeObject(parts[0]!)
  if (!header) throw new JwsRefused('malformed token')
  // Extensions we do not implement must not be ignored (RFC 7515 §4.1.11); an unencoded payload is one.
  if ('crit' in header || 'b64' in header) throw new JwsRefused('malformed token')
  if (header.alg !== ALGORITHM) throw new JwsRefused('token algorithm not allowed')
  return {
    header,
    signingInput: `${parts[0]}.${parts[1]}`,
    payload: parts[1]!,
    signature: Buffer.from(parts[2]!, 'base64url'),
  }
}

const keyObjects = new WeakMap<webcrypto.CryptoKey, KeyObject | null>()

/** node:crypto's view of a ring key; null unless it is an Ed25519 public key. */
function keyObjectOf(key: webcrypto.CryptoKey): KeyObject | null {
  let k = keyObjects.get(key)
  if (k === undefined) {
    const o = KeyObject.from(key)
    k = o.type === 'public' && o.asymmetricKeyType === 'ed25519' ? o : null
    keyObjects.set(key, k)
  }
  return k
}

/** Checks the signature, then the claims; answers the claims set. */
export function verifyJwt(jws: DecodedJws, key: webcrypto.CryptoKey, check: JwtCheck): Record<string, unknown> {
  const keyObject = keyObjectOf(key)
  if (!keyObject) throw new JwsRefused('unknown signing key')
  let good = false
  try {
    good = verify(null, Buffer.from(jws.signingInput, 'ascii'), keyObject, jws.signature)
  } catch {
    good = false // a signature of the wrong length
  }
  if (!good) throw new JwsRefused('bad token signature')
  const claims = decodeObject(jws.payload)
  if (!claims) throw new JwsRefused('malformed token')
  const claimInvalid = (name: string) => new JwsRefused(`token claim "${name}" invalid`)
  for (const name of ['aud', ...check.required]) if (!Object.hasOwn(claims, name)) throw claimInvalid(name)
  const aud = claims.aud
  if (!(aud === check.audience || (Array.isArray(aud) && aud.includes(check.audience)))) throw claimInvalid('aud')
  for (const name of ['iat', 'nbf', 'exp']) {
    if (Object.hasOwn(claims, name) && (typeof claims[name] !== 'number' || !Number.isFinite(claims[name])))
      throw claimInvalid(name)
  }
  if (typeof claims.nbf === 'number' && claims.nbf > check.nowSec) throw claimInvalid('nbf')
  if (typeof claims.exp === 'number' && claims.exp <= check.nowSec) throw new JwsRefused('token expired', claims)
  return claims
}
