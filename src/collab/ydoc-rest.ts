// GET/PATCH /ydoc/v1/{org}/{doc_id}: the document as a Yjs update, or an update applied to it.
import * as Y from 'yjs'
import { AppError } from '../infra/errors.js'
import type { RestRequest, RestRoutes } from './rest.js'

function fromBase64(value: string, what: string): Uint8Array {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw new AppError('bad_request', `${what} is not base64`)
  return new Uint8Array(Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64'))
}

const wantsBytes = (req: RestRequest) => req.accept.includes('application/octet-stream')

function updateFromBody(req: RestRequest): Uint8Array {
  const body = req.body ?? new Uint8Array()
  if (req.contentType.startsWith('application/octet-stream')) return body
  if (!req.contentType.startsWith('application/json')) {
    throw new AppError('unsupported_media_type', 'send application/json {"update": base64} or application/octet-stream')
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(new TextDecoder().decode(body))
  } catch {
    throw new AppError('bad_request', 'body is not valid JSON')
  }
  const update = (parsed as { update?: unknown } | null)?.update
  if (typeof update !== 'string') throw new AppError('bad_request', 'body must be {"update": "<base64 Yjs update>"}')
  return fromBase64(update, 'update')
}

export const ydocRoutes: RestRoutes = {
  ydoc: {
    GET: {
      access: 'r',
      async handle(req, { registry }) {
        const svParam = req.query.get('sv')
        const sv = svParam ? fromBase64(svParam, 'sv') : undefined
        const update = await registry.withDoc({ org: req.org, doc: req.doc, branch: req.cap.branch }, (doc) => {
          try {
            return Y.encodeStateAsUpdate(doc, sv)
          } catch {
            throw new AppError('bad_request', 'sv is not a valid Yjs state vector')
          }
        })
        if (wantsBytes(req)) return { status: 200, bytes: update }
        return { status: 200, json: { doc: Buffer.from(update).toString('base64') } }
      },
    },
    PATCH: {
      access: 'rw',
      body: true,
      async handle(req, { registry, storageHealth }) {
        const update = updateFromBody(req)
        if (update.length === 0) throw new AppError('bad_request', 'empty update')
        try {
          await storageHealth.untilDurable(registry.applyUpdate({ org: req.org, doc: req.doc, branch: req.cap.branch }, update, req.cap.sub))
        } catch (err) {
          if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
          throw err
        }
        return { status: 200, json: { ok: true } }
      },
    },
  },
}
