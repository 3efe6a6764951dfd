// Capability tokens (`yauth`): EdDSA-signed JWS naming one document, its branch and the access.
// Verification pins the algorithm and audience; each failure has its own error code.
import { randomUUID } from 'node:crypto'
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose'
import { AppError } from '../infra/errors.js'
import type { KeyRing } from './keys.js'

export const AUDIENCE = 'tandem-collab'
export type Access = 'r' | 'rw'

export interface Capability {
  sub: string
  org: string
  doc: string
  branch: string
  acc: Access
  asset?: string
  /** expiry, epoch seconds */
  exp: number
  jti: string
}

export interface MintRequest {
  sub: string
  org: string
  doc: string
  branch?: string
  acc: Access
  asset?: string
  ttlSec: number
}

export async function mintToken(keys: KeyRing, req: MintRequest, nowMs = Date.now()): Promise<{ token: string; expiresAtMs: number }> {
  const iat = Math.floor(nowMs / 1000)
  const exp = iat + req.ttlSec
  const claims: JWTPayload & Record<string, unknown> = { org: req.org, doc: req.doc, branch: req.branch ?? 'main', acc: req.acc }
  if (req.asset) claims.asset = req.asset
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.signingKid, typ: 'JWT' })
    .setSubject(req.sub)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(keys.signingKey)
  return { token, expiresAtMs: exp * 1000 }
}

const NAME = /^[A-Za-z0-9._~-]{1,200}$/

/** Verifies signature, algorithm, audience, expiry and claim shapes. Throws AppError (401). */
export async function verifyToken(keys: KeyRing, token: string | undefined | null, nowMs = Date.now()): Promise<Capability> {
  if (!token) throw new AppError('invalid_token', 'missing yauth token')
  if (token.length > 4096 || token.split('.').length !== 3) throw new AppError('invalid_token', 'malformed token')
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(
      token,
      async (header) => {
        if (!header.kid) throw new AppError('invalid_token', 'unknown signing key')
        let key = keys.publicKeys.get(header.kid)
        // Another process may have rotated in a key this one has not read yet.
        if (!key && keys.refresh) {
          await keys.refresh().catch(() => {
            throw new AppError('unavailable', 'signing keys cannot be read right now')
          })
          key = keys.publicKeys.get(header.kid)
        }
        if (!key) throw new AppError('invalid_token', 'unknown signing key')
        return key
      },
      { algorithms: ['EdDSA'], audience: AUDIENCE, currentDate: new Date(nowMs), requiredClaims: ['sub', 'exp', 'iat'] },
    ))
  } catch (err) {
    if (err instanceof AppError) throw err
    if (err instanceof joseErrors.JWTExpired) throw new AppError('token_expired', 'token expired')
    if (err instanceof joseErrors.JOSEAlgNotAllowed) throw new AppError('invalid_token', 'token algorithm not allowed')
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw new AppError('invalid_token', 'bad token signature')
    if (err instanceof joseErrors.JWTClaimValidationFailed) throw new AppError('invalid_token', `token claim "${err.claim}" invalid`)
    throw new AppError('invalid_token', 'malformed token')
  }
  const { sub, org, doc, acc, asset, exp, jti } = payload as Record<string, unknown>
  const branch = (payload as Record<string, unknown>).branch ?? 'main'
  if (typeof sub !== 'string' || !sub) throw new AppError('invalid_token', 'token claim "sub" invalid')
  if (typeof org !== 'string' || !NAME.test(org)) throw new AppError('invalid_token', 'token claim "org" invalid')
  if (typeof doc !== 'string' || !NAME.test(doc)) throw new AppError('invalid_token', 'token claim "doc" invalid')
  if (typeof branch !== 'string' || !NAME.test(branch)) throw new AppError('invalid_token', 'token claim "branch" invalid')
  if (acc !== 'r' && acc !== 'rw') throw new AppError('invalid_token', 'token claim "acc" invalid')
  return {
    sub,
    org,
    doc,
    branch,
    acc,
    exp: exp as number,
    jti: typeof jti === 'string' ? jti : '',
    ...(typeof asset === 'string' ? { asset } : {}),
  }
}

/** A token opens exactly the document (and branch) it names. */
export function checkDocument(cap: Capability, org: string, doc: string): void {
  if (cap.org !== org || cap.doc !== doc) throw new AppError('forbidden', 'token is for another document')
}

export const DOC_NAME = NAME
