// GET/PATCH /ydoc/v1/{org}/{doc_id}: the document as a Yjs update (and, with ?awareness=true, the
// room's presence), or a change to it: an update (rw), an awareness update (r is enough), or both.
import * as Y from 'yjs'
import type { AgentPolicy } from '../../agents/approval.js'
import { attributionProblem, mergeAttributions, normalizeAttributions } from '../../auth/attributions.js'
import { AppError } from '../../infra/errors.js'
import type { Attributes } from '../../storage/doc-store.js'
import { checkAwarenessUpdate } from '../awareness-update.js'
import type { RestRequest, RestRoutes } from './route-model.js'

function fromBase64(value: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw new AppError('bad_request', `${what} is not base64`)
  return new Uint8Array(Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64'))
}

const wantsBytes = (req: RestRequest) => req.accept.includes('application/octet-stream')

interface Change {
  update: Uint8Array | null
  awareness: Uint8Array | null
  attributions: Attributes | undefined
}

/** octet-stream: the body is an update; JSON: `{"update"?, "awareness"?, "attributions"?}`, one of the first two at least. */
function changeFromBody(req: RestRequest): Change {
  const body = req.body ?? new Uint8Array()
  if (req.contentType.startsWith('application/octet-stream')) return { update: body, awareness: null, attributions: undefined }
  if (!req.contentType.startsWith('application/json')) {
    throw new AppError('unsupported_media_type', 'send application/json {"update": base64} or application/octet-stream')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(body))
  } catch {
    throw new AppError('bad_request', 'body is not valid JSON')
  }
  const o = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { update?: unknown; awareness?: unknown; attributions?: unknown }
  if (o.update !== undefined && typeof o.update !== 'string') throw new AppError('bad_request', 'update must be a base64 Yjs update')
  if (o.awareness !== undefined && typeof o.awareness !== 'string') throw new AppError('bad_request', 'awareness must be a base64 awareness update')
  if (o.update === undefined && o.awareness === undefined) {
    throw new AppError('bad_request', 'body must be {"update": "<base64 Yjs update>"} and/or {"awareness": "<base64 awareness update>"}')
  }
  let attributions: Attributes | undefined
  if (o.attributions !== undefined) {
    const problem = attributionProblem(o.attributions)
    if (problem) throw new AppError('validation', problem)
    attributions = normalizeAttributions(o.attributions as Record<string, string>)
  }
  return {
    update: o.update === undefined ? null : fromBase64(o.update, 'update'),
    awareness: o.awareness === undefined ? null : fromBase64(o.awareness, 'awareness'),
    attributions,
  }
}

/**
 * `agents`: where a workspace requires approval for agents' edits, an update from an agent's token
 * is refused here (403): such edits go through /content, held as suggestions.
 */
export const ydocRoutes = (agents?: Pick<AgentPolicy, 'ruled'>): RestRoutes => ({
  ydoc: {
    GET: {
      access: 'r',
      async handle(req, { registry }) {
        const svParam = req.query.get('sv')
        const sv = svParam ? fromBase64(svParam, 'sv') : undefined
        const awarenessParam = req.query.get('awareness')
        if (awarenessParam !== null && !/^(true|false|1|0)$/i.test(awarenessParam)) throw new AppError('bad_request', 'awareness must be true or false')
        const withAwareness = awarenessParam !== null && /^(true|1)$/i.test(awarenessParam)
        const { room, release } = await registry.acquire({ org: req.org, doc: req.doc, branch: req.cap.branch })
        let update: Uint8Array
        let awareness: Uint8Array | null = null
        try {
          try {
            update = await room.readState(sv)
          } catch (err) {
            // a state vector the diff cannot use; any other failure (storage, budget) is its own
            if (sv && !(err instanceof AppError && err.code !== 'bad_request')) throw new AppError('bad_request', 'sv is not a valid Yjs state vector')
            throw err
          }
          if (withAwareness) awareness = room.encodeAwarenessStates()
        } finally {
          release()
        }
        if (wantsBytes(req)) return { status: 200, bytes: update }
        const json: Record<string, string> = { doc: Buffer.from(update).toString('base64') }
        if (awareness) json.awareness = Buffer.from(awareness).toString('base64')
        return { status: 200, json }
      },
    },
    PATCH: {
      // an r token may send awareness; an update needs rw (checked below)
      access: 'r',
      body: true,
      async handle(req, { registry, storageHealth }) {
        const change = changeFromBody(req)
        if (change.update && req.cap.acc !== 'rw') throw new AppError('read_only', 'this token is read-only') // it may send awareness, not updates
        if (change.update?.length === 0) throw new AppError('bad_request', 'empty update')
        if (change.update && agents && (await agents.ruled(req.cap, req.org)).acc !== 'rw') {
          throw new AppError('forbidden', "this workspace requires approval for agents' edits: write through /content, where the edit is held as a suggestion")
        }
        const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
        // Everything is checked before anything is applied: a refusal changes nothing.
        if (change.awareness) checkAwarenessUpdate(change.awareness)
        const attrs = mergeAttributions(req.cap.attr, change.attributions)
        const problem = change.attributions && attrs ? attributionProblem(attrs) : null // the merge may pass the key limit
        if (problem) throw new AppError('validation', `token and body attributions together: ${problem}`)
        if (change.update) {
          try {
            await storageHealth.untilDurable(registry.docs.applyUpdate(ref, change.update, req.cap.sub, attrs))
          } catch (err) {
            if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
            throw err
          }
        }
        if (change.awareness) {
          const { room, release } = await registry.acquire(ref, req.cap.sub)
          try {
            room.applyRestAwareness(change.awareness)
          } finally {
            release()
          }
        }
        return { status: 200, json: { ok: true } }
      },
    },
  },
})
