// GET/PATCH /ydoc/v1/{org}/{doc_id}: the document as a Yjs update (and, with ?awareness=true, the
// room's presence), or a change to it: an update (rw), an awareness update (r is enough), or both.
import type { AgentPolicy } from '../../agents/approval.js'
import { attributionProblem, mergeAttributions } from '../../auth/attributions.js'
import { AppError } from '../../infra/errors.js'
import { checkAwarenessUpdate } from '../awareness-update.js'
import { bindRoutes, type RestRequest, type RestRoutes } from './route-model.js'
import { YDOC_ROUTES } from './ydoc-schema.js'

const wantsBytes = (req: RestRequest) => req.accept.includes('application/octet-stream')

/**
 * `agents`: where a workspace requires approval for agents' edits, an update from an agent's token
 * is refused here (403): such edits go through /content, held as suggestions.
 */
export const ydocRoutes = (agents?: Pick<AgentPolicy, 'ruled'>): RestRoutes =>
  bindRoutes(YDOC_ROUTES, {
    ydoc: {
      async GET(req, { registry }, { query }) {
        const sv = query.sv?.length ? query.sv : undefined
        const withAwareness = query.awareness === true
        const { room, release } = await registry.acquire({ org: req.org, doc: req.doc, branch: req.cap.branch })
        let update: Uint8Array
        let awareness: Uint8Array | null = null
        try {
          try {
            update = await room.readState(sv)
          } catch (err) {
            // a state vector the diff cannot use; any other failure (storage, budget) is its own
            if (sv && !(err instanceof AppError && err.code !== 'bad_request'))
              throw new AppError('bad_request', 'sv is not a valid Yjs state vector')
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
      async PATCH(req, { registry, storageHealth }, { body }) {
        const change =
          body instanceof Uint8Array ? { update: body, awareness: undefined, attributions: undefined } : body
        if (change.update && req.cap.acc !== 'rw') throw new AppError('read_only', 'this token is read-only') // it may send awareness, not updates
        if (change.update?.length === 0) throw new AppError('bad_request', 'empty update')
        if (change.update && agents && (await agents.ruled(req.cap, req.org)).acc !== 'rw') {
          throw new AppError(
            'forbidden',
            "this workspace requires approval for agents' edits: write through /content, where the edit is held as a suggestion",
          )
        }
        const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
        // Everything is checked before anything is applied: a refusal changes nothing.
        if (change.awareness) checkAwarenessUpdate(change.awareness)
        const attrs = mergeAttributions(req.cap.attr, change.attributions)
        // the merge may pass the key limit
        const problem = change.attributions && attrs ? attributionProblem(attrs) : null
        if (problem) throw new AppError('validation', `token and body attributions together: ${problem}`)
        if (change.update) {
          try {
            await storageHealth.untilDurable(registry.docs.applyUpdate(ref, change.update, req.cap.sub, attrs))
          } catch (err) {
            if (err instanceof AppError && err.code === 'malformed_message')
              throw new AppError('bad_request', err.message)
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
  })
