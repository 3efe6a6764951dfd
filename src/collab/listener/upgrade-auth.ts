// Who may upgrade, decided before the 101: the Origin allow-list (403, for the Hocuspocus root URL too), the token
// (401), its document (403), whether the document was deleted (404) and the deny-list. One exception a browser needs:
// it cannot read a 401 on an upgrade (the provider sees 1006 and retries forever), so a token whose only fault is
// expiry is accepted and the socket closed at once with 4401 and a reason, a bounded number of times per client per
// minute; past that budget it is a 401 like every other refusal. A token naming a signing key this process has not read
// yet is the other exception: its key is re-read after the upgrade (an upgrade after an await meets the uWS cork()
// bug), and a refusal then closes the socket with 4401 (4403 for another document) and a reason.
import { admitToDocument } from '../../auth/document-admission.js'
import { TokenRefused, verifyToken, verifyTokenNow, type Capability } from '../../auth/capability.js'
import { AppError } from '../../infra/errors.js'
import { CLOSE, type CloseCode } from '@tandem/protocol/close-codes'
import { ClientBudget } from '../client-budget.js'
import { decodeDocPath } from '../doc-path.js'
import type { CollabListenerDeps } from './deps.js'

export interface UpgradeRequest {
  url: string
  query: URLSearchParams
  protocols: string
  origin: string
  ip: string
}

/** What to do with the socket once it is open: join the document, or close it with a reason. */
export type Decided =
  | { kind: 'open'; org: string; doc: string; cap: Capability; protocol: string }
  | { kind: 'close'; code: CloseCode; reason: string; protocol: string }

/**
 * A decision, or (for a token naming a key not read yet) the protocol to answer and the decision to
 * come, or a Hocuspocus socket (the root URL), whose documents are authenticated one by one after the open.
 */
export type UpgradeDecision =
  | Decided
  | { kind: 'verify'; org: string; doc: string; protocol: string; decided: Promise<Decided> }
  | { kind: 'hocuspocus'; protocol: string }

/** The token from `?yauth=` or from a `yauth-<token>` entry of Sec-WebSocket-Protocol. */
function tokenOf(query: URLSearchParams, protocols: string): { token: string | null; protocol: string } {
  const fromProtocol = protocols
    .split(',')
    .map((p) => p.trim())
    .find((p) => p.startsWith('yauth-'))
  return { token: query.get('yauth') ?? fromProtocol?.slice(6) ?? null, protocol: fromProtocol ?? '' }
}

function parseRoomPath(url: string): { org: string; doc: string } {
  const m = /^\/([^/]+)\/([^/]+)\/?$/.exec(url)
  if (!m) throw new AppError('not_found', 'connect to /{org}/{doc_id}')
  return decodeDocPath(m[1]!, m[2]!)
}

/**
 * Decides an upgrade at once when it can (every check is synchronous once the token's signing key
 * is in the ring); throws the refusals answered before the 101. A token naming a key this process
 * must first re-read from a shared ring is decided after the upgrade (`verify`): the caller upgrades
 * inside uWS's handler either way, and closes the socket with 4401 if that token is refused.
 */
export function upgradeAuthorizer(d: CollabListenerDeps): (req: UpgradeRequest) => UpgradeDecision {
  const { config } = d
  const origins = new Set(config.wsOrigins)
  const expiredBudget = new ClientBudget(config.expiredUpgradesPerMin, d.now)

  const opened = (org: string, doc: string, cap: Capability, protocol: string): Decided => {
    return { kind: 'open', org, doc, cap: admitToDocument(d, cap, org, doc), protocol }
  }

  /** A refused token stays refused, except one whose only fault is expiry (see the top). */
  const refused = (req: UpgradeRequest, org: string, doc: string, protocol: string, err: unknown): Decided => {
    const expired = err instanceof TokenRefused ? err.expiredCap : undefined
    if (!expired || expired.org !== org || expired.doc !== doc || d.revocations.effectFor(expired) === 'deny') throw err
    d.deleted.check(org, doc)
    if (!expiredBudget.take(req.ip))
      throw new TokenRefused('token_expired', 'token expired (accept-and-close budget of this client used up)')
    d.metrics.authRefusals.inc({ where: 'upgrade', reason: 'expired_accepted_closed' })
    d.log.info({ ip: req.ip, path: req.url }, 'upgrade accepted to close it with 4401: token expired')
    return { kind: 'close', code: CLOSE.tokenExpired, reason: 'token expired: mint a new one and reconnect', protocol }
  }

  return (req) => {
    // Browsers always send Origin; clients without one (servers, CLIs) are not what it guards against.
    if (origins.size > 0 && req.origin && !origins.has(req.origin)) {
      d.metrics.authRefusals.inc({ where: 'upgrade', reason: 'origin' })
      throw new AppError('forbidden', 'origin not allowed')
    }
    if (req.url === '/') return { kind: 'hocuspocus', protocol: '' }
    const { org, doc } = parseRoomPath(req.url)
    const { token, protocol } = tokenOf(req.query, req.protocols)
    const now = d.now()
    let cap: Capability | null
    try {
      cap = verifyTokenNow(d.keys, token, now, config.tokenClockSkewSec)
    } catch (err) {
      return refused(req, org, doc, protocol, err)
    }
    if (cap) return opened(org, doc, cap, protocol)
    const decided = verifyToken(d.keys, token, now, config.tokenClockSkewSec).then(
      (c) => opened(org, doc, c, protocol),
      (err: unknown) => refused(req, org, doc, protocol, err),
    )
    decided.catch(() => undefined) // handled once the socket opens; never an unhandled rejection meanwhile
    return { kind: 'verify', org, doc, protocol, decided }
  }
}
