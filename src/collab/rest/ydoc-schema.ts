// The ydoc route's declaration (GET/PATCH /ydoc/v1/{org}/{doc_id}): light, so the dispatch and
// the OpenAPI document have it at start.
import { z } from 'zod'
import { attributions, base64Bytes, flag } from './fields.js'
import { declareRoutes } from './route-model.js'

const CHANGE = 'body must be {"update": "<base64 Yjs update>"} and/or {"awareness": "<base64 awareness update>"}'

const YdocChange = z
  .object(
    {
      update: base64Bytes('update', 'update must be a base64 Yjs update').optional(),
      awareness: base64Bytes('awareness', 'awareness must be a base64 awareness update').optional(),
      attributions: attributions.optional(),
    },
    { error: CHANGE },
  )
  .refine((o) => o.update !== undefined || o.awareness !== undefined, { error: CHANGE })
  .meta({ id: 'YdocChange' })

export const YDOC_ROUTES = declareRoutes({
  ydoc: {
    GET: {
      summary: 'The document as a Yjs update (only what `sv` lacks), with the room’s presence on `awareness=true`',
      access: 'r',
      query: z.object({
        sv: base64Bytes('sv', 'sv must be a base64 state vector').optional(),
        awareness: flag('awareness').optional(),
      }),
      answers: {
        200: {
          description: 'the update (and awareness) in base64, or raw bytes',
          json: z.object({ doc: z.string(), awareness: z.string().optional() }).meta({ id: 'YdocState' }),
          bytes: true,
        },
      },
    },
    PATCH: {
      summary: 'Apply a Yjs update (rw) and/or an awareness update (r is enough)',
      // an r token may send awareness; an update needs rw (the handler checks)
      access: 'r',
      body: {
        json: YdocChange,
        bytes: true,
        media: 'send application/json {"update": base64} or application/octet-stream',
      },
      answers: { 200: { description: 'applied, durable and broadcast', json: z.object({ ok: z.literal(true) }) } },
    },
  },
})
