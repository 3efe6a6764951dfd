// HTTP side of the collab REST API, whatever transport carries it: CORS, token and access checks,
// body limits, and the `{error, code}` error shape. The handlers themselves live in collab/; each
// transport copies its request into a RestCall and answers through an HttpReply.
import { Readable } from 'node:stream'
import { admitToDocument } from '../../auth/document-admission.js'
import { TokenRefused, refusalKind, verifyToken } from '../../auth/capability.js'
import type { Config } from '../../infra/config.js'
import { AppError, collabErrorReply, isAppError } from '../../infra/errors.js'
import { tooDeepAt } from '../../infra/json-depth.js'
import { decodeDocPath } from '../doc-path.js'
import { takesPieces } from '../rest/route-input.js'
import type { RestMethod } from '../rest/route-model.js'
import type { ListenerContext } from './deps.js'

/** A response that is safe to write after awaits (it knows whether the client went away). */
export interface HttpReply {
  send(status: number, body: string | Uint8Array, contentType: string, headers?: Record<string, string>): void
  json(status: number, value: unknown, headers?: Record<string, string>): void
}

/** A request to the collab listener, copied out of the transport's request before any await. */
export interface CopiedRequest {
  method: string
  query: URLSearchParams
  /** header names in lower case; one value each */
  headers: Map<string, string>
}

/** A collab REST request: `/{name}/v1/{org}/{doc}[/{id}[/{action}]]`, its client address and its body. */
export interface RestCall extends CopiedRequest {
  ip: string
  name: string
  rawOrg: string
  rawDoc: string
  rawId: string | null
  action: string | null
  /**
   * Hands each piece of the body to `onPiece` as it arrives, resolving at its end; refuses (413)
   * past `limit` bytes without buffering the rest. Called before any await (uWS drops what nobody reads).
   */
  readPieces(limit: number, declaredLength: number, onPiece: (piece: Uint8Array) => void): Promise<void>
}

/** The whole body of `call`, within `limit` bytes. */
function wholeBody(call: RestCall, limit: number, declaredLength: number): Promise<Uint8Array> {
  const pieces: Uint8Array[] = []
  return call.readPieces(limit, declaredLength, (p) => pieces.push(p)).then(() => new Uint8Array(Buffer.concat(pieces)))
}

/** The body of `call` as a stream of its pieces: what arrives before the handler reads is kept for it. */
function bodyPieces(call: RestCall, limit: number, declaredLength: number): Readable {
  const pieces = new Readable({ read() {} })
  call
    .readPieces(limit, declaredLength, (p) => pieces.push(p))
    .then(
      () => pieces.push(null),
      (err: unknown) => pieces.destroy(err as Error),
    )
  return pieces
}

export function corsHeaders(origin: string | undefined, config: Config): Record<string, string> {
  if (!origin) return {}
  if (config.corsOrigins.includes('*')) return { 'access-control-allow-origin': '*' }
  if (config.corsOrigins.includes(origin)) return { 'access-control-allow-origin': origin, vary: 'Origin' }
  return {}
}

/** The headers of a CORS preflight's 204. */
export function preflightHeaders(origin: string | undefined, config: Config): Record<string, string> {
  return {
    ...corsHeaders(origin, config),
    'access-control-allow-methods': 'GET, PATCH, POST, DELETE, OPTIONS',
    'access-control-allow-headers': 'content-type, accept, authorization',
    'access-control-max-age': '600',
  }
}

/** The answer to a path no route serves. */
export function notFound(reply: HttpReply): void {
  reply.json(404, { error: 'no such route', code: 'not_found' })
}

/** `?yauth=`, else `Authorization: Bearer <token>`. */
function tokenOf(req: CopiedRequest): string | null {
  const fromQuery = req.query.get('yauth')
  if (fromQuery !== null) return fromQuery
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '')
  return m ? m[1]! : null
}

/** Answers one collab REST call (`reply` adds the CORS headers of the call's origin). */
export function serveRest(copied: RestCall, reply: HttpReply, d: ListenerContext): void {
  const { ip, name, rawOrg, rawDoc, rawId, action } = copied
  const started = performance.now()
  const method = copied.method
  const route = d.restRoutes[name]?.[method as RestMethod]
  const routeLabel = d.restRoutes[name] ? name : 'unknown'

  const finish = (status: number) => {
    d.metrics.httpRequests.inc({ listener: 'collab', route: routeLabel, method, status: String(status) })
    d.metrics.httpDuration.observe({ listener: 'collab', route: routeLabel }, (performance.now() - started) / 1000)
  }

  let pieces: Readable | null = null
  void (async () => {
    try {
      if (!d.restRoutes[name]) throw new AppError('not_found', `no collab REST API named ${JSON.stringify(name)}`)
      if (!route) throw new AppError('method_not_allowed', `${method} is not supported on ${name}`)
      const { org, doc } = decodeDocPath(rawOrg, rawDoc)
      if (rawId !== null ? !route.id : route.id === 'required')
        throw new AppError('not_found', `no such path on ${name}`)
      if (action !== null && !route.actions?.includes(action))
        throw new AppError('not_found', `no such path on ${name}`)
      // The body is read (or refused) before any await, so uWS never drops its chunks.
      const contentType = copied.headers.get('content-type') ?? ''
      const declared = Number(copied.headers.get('content-length') ?? 0)
      const asPieces = takesPieces(route.body, contentType)
      pieces = asPieces ? bodyPieces(copied, route.body!.pieces!.limit, declared) : null
      pieces?.on('error', () => {}) // the handler sees it where it reads; nobody may if auth fails first
      const body = route.body && !asPieces ? wholeBody(copied, d.config.maxRestBodyBytes, declared) : null
      body?.catch(() => {}) // observed below; avoid an unhandled rejection if auth fails first
      const refused = d.throttle.admitAuth(ip)
      if (refused) throw refused
      const verified = await verifyToken(d.keys, tokenOf(copied), d.now(), d.config.tokenClockSkewSec)
      // One check for every collab REST route: a deleted document is 404 doc_deleted.
      const cap = admitToDocument(d, verified, org, doc)
      if (route.access === 'rw' && cap.acc !== 'rw') throw new AppError('read_only', 'this token is read-only')
      const agentHeld =
        route.access === 'rw' &&
        !route.agentsHeld &&
        d.agents !== undefined &&
        (await d.agents.ruled(cap, org)).acc !== 'rw'
      if (agentHeld && !(route.agentsWithdraw && action === 'reject')) {
        throw new AppError(
          'forbidden',
          "this workspace requires approval for agents' edits: an agent writes through /content, where its edit is held as a suggestion",
        )
      }
      const bytes = body ? await body : null
      // Any body but raw bytes may reach JSON.parse: refuse a too-deep one before it can (it would
      // hold this event loop and build one array per bracket).
      const maxDepth = Math.max(d.config.maxJsonDepth, route.jsonDepth ?? 0)
      if (bytes && !contentType.startsWith('application/octet-stream') && tooDeepAt(bytes, maxDepth) >= 0) {
        throw new AppError('bad_request', `JSON body nested deeper than ${maxDepth} levels`)
      }
      const result = await route.handle(
        {
          method,
          org,
          doc,
          id: rawId,
          action,
          cap,
          query: copied.query,
          accept: copied.headers.get('accept') ?? '',
          contentType,
          body: bytes,
          pieces,
          agentHeld,
        },
        {
          registry: d.registry,
          store: d.store,
          storageHealth: d.storageHealth,
          config: d.config,
          now: d.now,
          versionState: d.versionState,
        },
      )
      if (result.bytes) reply.send(result.status, result.bytes, 'application/octet-stream', result.headers)
      else if (result.jsonText !== undefined)
        reply.send(result.status, result.jsonText, 'application/json', result.headers)
      else if (result.status === 204) reply.send(204, '', 'text/plain', result.headers)
      else reply.json(result.status, result.json ?? null, result.headers)
      finish(result.status)
    } catch (err) {
      if (!isAppError(err)) d.log.error({ err, route: name }, 'collab REST request failed')
      else if (err instanceof TokenRefused) {
        d.metrics.authRefusals.inc({ where: 'rest', reason: refusalKind(err) })
        d.log.info({ route: name, reason: err.reason }, 'collab REST refused: token')
      }
      pieces?.destroy() // an answer before the body's end: nothing more of it is read
      const { status, body, headers } = collabErrorReply(err)
      if (status === 401) d.throttle.authFailed(ip)
      reply.json(status, body, headers)
      finish(status)
    }
  })()
}
