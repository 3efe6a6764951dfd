// The versions routes' declaration (/versions/v1/{org}/{doc_id}[/{id}]): bodies and answers.
import { z } from 'zod'
import { unprocessable } from '../collab/rest/route-input.js'
import { declareRoutes } from '../collab/rest/route-model.js'
import { MAX_NAME_CHARS } from './record.js'

/** 1 to 200 characters (code points), not only white space; a wrong type is 400, a wrong length 422. */
const name = z.string({ error: 'name must be a string' }).superRefine(
  unprocessable((v: string) => {
    const chars = [...v].length
    if (chars > MAX_NAME_CHARS) return `name must be at most ${MAX_NAME_CHARS} characters, got ${chars}`
    return v.trim() === '' ? 'name must not be empty' : null
  }),
)

const object = { error: 'body must be a JSON object' }

const VersionRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    seq: z.int(),
    created_at_ms: z.int(),
    updated_at_ms: z.int(),
    by: z.string(),
  })
  .meta({ id: 'VersionRecord' })

export const VERSION_ROUTES = declareRoutes({
  versions: {
    POST: {
      summary: 'Name the document as it is now (durable before the 201)',
      access: 'rw',
      body: { json: z.object({ name }, object), anyMedia: true },
      answers: { 201: { description: 'the version, durable', json: VersionRecord } },
      errors: { 409: 'the document keeps its most versions already', 422: 'a name too long or empty' },
    },
    GET: {
      summary: 'The versions, newest first; with `/{id}`, one version and the document as it was',
      access: 'r',
      id: 'optional',
      answers: {
        200: {
          description:
            'the list, or one version with its document (base64; raw bytes on Accept: application/octet-stream)',
          json: z.union([
            z.object({ versions: z.array(VersionRecord) }),
            z.object({ version: VersionRecord, doc: z.string() }),
          ]),
          bytes: true,
        },
      },
    },
    PATCH: {
      summary: 'Rename, if the record is still as read (`updated_at_ms`)',
      access: 'rw',
      id: 'required',
      body: {
        json: z.object(
          {
            name,
            updated_at_ms: z
              .int({ error: 'updated_at_ms must be the integer of the record being renamed' })
              .min(Number.MIN_SAFE_INTEGER)
              .max(Number.MAX_SAFE_INTEGER),
          },
          object,
        ),
        anyMedia: true,
      },
      answers: { 200: { description: 'the renamed record', json: VersionRecord } },
      errors: {
        409: 'renamed or changed since `updated_at_ms`: the current record attached',
        422: 'a name too long or empty',
      },
    },
    DELETE: {
      summary: 'Remove a version',
      access: 'rw',
      id: 'required',
      answers: { 204: { description: 'removed' } },
    },
  },
})
