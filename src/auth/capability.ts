// Capability tokens (`yauth`): EdDSA-signed JWS naming one document, its branch and the access.
// Verification pins the algorithm and audience. Callers see only `invalid` or `expired`; the reason
// travels in the error's details for the log.
import { randomUUID } from 'node:crypto'
// jose's subpaths, not its index: the index loads every JWE/JWKS module too (~60 files at start).
import type { JWTPayload } from 'jose'
import { SignJWT } from 'jose/jwt/sign'
import { AppError } from '../infra/errors.js'
import type { Attributes } from '../storage/doc-store.js'
import { attributionProblem, normalizeAttributions } from './attributions.js'
import { ALGORITHM, JwsRefused, decodeJws, verifyJwt } from './jws.js'
import type { KeyRing } from './keys/ring.js'

const AUDIENCE = 'tandem-collab'
export type Access = 'r' | 'rw'

export interface Capability {
  sub: string
  org: string
  doc: string
  branch: string
  acc: Access
  asset?: string
  /** custom attributions (claim `attr`), stored with every update the token sends; absent when none */
  attr?: Attributes
  /** minted for an agent (claim `agent`): an agent key or user, or an MCP session (src/agents/) */
  agent?: true
  /** the agent session the token was minted for (claim `ses`): one presence in a room per session */
  session?: AgentSession
  /** expiry, epoch seconds */
  exp: number
  /** Issued at, epoch seconds: revocations refuse tokens issued before a time. Always set by
   * verifyToken; a capability built without it counts as issued at 0 (the oldest). */
  iat?: number
  jti: string
}

/** Default tolerance for clocks ahead of ours, for `iat` (seconds). */
const DEFAULT_CLOCK_SKEW_SEC = 60

/**
 * A refused token. The public message is only `invalid` or `expired`; `reason` is for the log.
 * An expired token whose signature and claims are otherwise good carries its capability, so the
 * upgrade can tell a browser why it is closed (see collab/listener/upgrade-auth.ts).
 */
export class TokenRefused extends AppError {
  constructor(
    code: 'invalid_token' | 'token_expired',
    readonly reason: string,
    readonly expiredCap?: Capability,
  ) {
    super(code, code === 'token_expired' ? 'expired' : 'invalid', { details: reason })
  }
}

const invalid = (reason: string) => new TokenRefused('invalid_token', reason)

export const TOKEN_REVOKED = 'token revoked'

/** The metric/log label of a refusal: invalid, expired or revoked. */
export function refusalKind(err: TokenRefused): 'invalid' | 'expired' | 'revoked' {
  return err.reason === TOKEN_REVOKED ? 'revoked' : err.code === 'token_expired' ? 'expired' : 'invalid'
}

/** An agent session (an MCP session, say): its id and how people see it named in the room. */
export interface AgentSession {
  id: string
  name?: string
  model?: string
}

const SESSION_ID = /^[A-Za-z0-9._~:-]{1,128}$/
const LABEL_MAX = 100

/** The claim's shape, or null: an id, and a name and model of at most 100 characters. */
function sessionOf(raw: unknown): AgentSession | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
  const { id, name, model, ...rest } = raw as Record<string, unknown>
  if (Object.keys(rest).length || typeof id !== 'string' || !SESSION_ID.test(id)) return null
  const label = (v: unknown) => v === undefined || (typeof v === 'string' && v.length > 0 && v.length <= LABEL_MAX)
  if (!label(name) || !label(model)) return null
  return {
    id,
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof model === 'string' ? { model } : {}),
  }
}

export interface MintRequest {
  sub: string
  org: string
  doc: string
  branch?: string
  acc: Access
  asset?: string
  /** custom attributions the token carries (claim `attr`); checked by the caller */
  attr?: Readonly<Record<string, string>>
  /** the caller is an agent: the token says so whatever its attributions (src/agents/) */
  agent?: boolean
  /** the agent session it is minted for (claim `ses`) */
  session?: AgentSession
  ttlSec: number
}

export async function mintToken(
  keys: KeyRing,
  req: MintRequest,
  nowMs = Date.now(),
): Promise<{ token: string; expiresAtMs: number }> {
  const iat = Math.floor(nowMs / 1000)
  const exp = iat + req.ttlSec
  const claims: JWTPayload & Record<string, unknown> = {
    org: req.org,
    doc: req.doc,
    branch: req.branch ?? 'main',
    acc: req.acc,
  }
  if (req.asset) claims.asset = req.asset
  if (req.agent) claims.agent = true
  if (req.session) {
    const session = sessionOf(req.session)
    if (!session)
      throw new AppError('validation', 'agent session: an id of 1-128 URL-safe characters, name and model of 1-100')
    claims.ses = session
  }
  const attr = req.attr && normalizeAttributions(req.attr)
  if (attr) {
    const problem = attributionProblem(attr)
    if (problem) throw new AppError('validation', problem)
    claims.attr = attr
  }
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, kid: keys.signingKid, typ: 'JWT' })
    .setSubject(req.sub)
    .setAudience(AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(keys.signingKey)
  return { token, expiresAtMs: exp * 1000 }
}

const NAME = /^[A-Za-z0-9._~-]{1,200}$/

/**
 * Verifies signature, algorithm, audience, expiry, `iat` (not ahead of our clock by more than
 * `clockSkewSec`) and claim shapes, without waiting. Throws TokenRefused (401). Answers null only
 * when the token names a key this process has not read and the ring can re-read its keys
 * (`verifyToken` does that, then verifies again).
 */
export function verifyTokenNow(
  keys: KeyRing,
  token: string | undefined | null,
  nowMs = Date.now(),
  clockSkewSec = DEFAULT_CLOCK_SKEW_SEC,
): Capability | null {
  if (!token) throw invalid('missing yauth token')
  if (token.length > 4096) throw invalid('malformed token')
  let claims: Record<string, unknown>
  try {
    const jws = decodeJws(token)
    const key = typeof jws.header.kid === 'string' ? keys.publicKeys.get(jws.header.kid) : undefined
    if (!key) {
      if (keys.refresh && typeof jws.header.kid === 'string') return null
      throw invalid('unknown signing key')
    }
    claims = verifyJwt(jws, key, {
      audience: AUDIENCE,
      required: ['sub', 'exp', 'iat'],
      nowSec: Math.floor(nowMs / 1000),
    })
  } catch (err) {
    if (!(err instanceof JwsRefused)) throw err
    // Expiry is checked after the signature and every other claim: such a token is otherwise
    // sound once our own shape checks pass too.
    if (err.expiredClaims)
      throw new TokenRefused('token_expired', 'token expired', claimsOf(err.expiredClaims, nowMs, clockSkewSec))
    throw invalid(err.message)
  }
  return claimsOf(claims, nowMs, clockSkewSec)
}

/** verifyTokenNow, re-reading a shared key ring first when the token names a key not read yet. */
export async function verifyToken(
  keys: KeyRing,
  token: string | undefined | null,
  nowMs = Date.now(),
  clockSkewSec = DEFAULT_CLOCK_SKEW_SEC,
): Promise<Capability> {
  const cap = verifyTokenNow(keys, token, nowMs, clockSkewSec)
  if (cap) return cap
  // Another process may have rotated in a key this one has not read yet.
  await keys.refresh!().catch(() => {
    throw new AppError('unavailable', 'signing keys cannot be read right now')
  })
  return verifyTokenNow({ ...keys, refresh: undefined }, token, nowMs, clockSkewSec)!
}

function claimsOf(payload: Record<string, unknown>, nowMs: number, clockSkewSec: number): Capability {
  const { sub, org, doc, acc, asset, exp, iat, jti, attr, agent, ses } = payload
  const branch = payload.branch ?? 'main'
  // NUL never: PostgreSQL text refuses it, and the history joins user and attributions with it
  if (typeof sub !== 'string' || !sub || sub.includes('\u0000')) throw invalid('token claim "sub" invalid')
  if (typeof org !== 'string' || !NAME.test(org)) throw invalid('token claim "org" invalid')
  if (typeof doc !== 'string' || !NAME.test(doc)) throw invalid('token claim "doc" invalid')
  if (typeof branch !== 'string' || !NAME.test(branch)) throw invalid('token claim "branch" invalid')
  if (acc !== 'r' && acc !== 'rw') throw invalid('token claim "acc" invalid')
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw invalid('token claim "exp" invalid')
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalid('token claim "iat" invalid')
  // A token from the future would outlive its ttl and slip past `--before` revocations.
  if (iat > nowMs / 1000 + clockSkewSec) throw invalid('token issued in the future')
  if (attr !== undefined && attributionProblem(attr) !== null) throw invalid('token claim "attr" invalid')
  if (agent !== undefined && agent !== true) throw invalid('token claim "agent" invalid')
  const session = ses === undefined ? undefined : sessionOf(ses)
  if (session === null) throw invalid('token claim "ses" invalid')
  const attributes = attr === undefined ? undefined : normalizeAttributions(attr as Record<string, string>)
  return {
    sub,
    org,
    doc,
    branch,
    acc,
    exp,
    iat,
    jti: typeof jti === 'string' ? jti : '',
    ...(typeof asset === 'string' ? { asset } : {}),
    ...(attributes ? { attr: attributes } : {}),
    ...(agent === true ? { agent } : {}),
    ...(session ? { session } : {}),
  }
}

/** A token opens exactly the document (and branch) it names. */
export function checkDocument(cap: Capability, org: string, doc: string): void {
  if (cap.org !== org || cap.doc !== doc) throw new AppError('forbidden', 'token is for another document')
}

export const DOC_NAME = NAME
