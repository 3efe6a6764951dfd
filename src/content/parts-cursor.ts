// The `next` cursor of a part read: where the read stopped, and the base it read, so the next page
// reads the same document state (rebuilt from history if it changed meanwhile) and continues at
// the very character after the last one answered. Opaque to clients (base64url JSON), checked like
// any parameter when it comes back: the base inside is sealed (base-token.ts), the rest only
// indexes into the text of that base.
import { z } from 'zod'
import { AppError } from '../infra/errors.js'

const span = z.tuple([z.number().int().min(0), z.number().int().min(0)])
const common = { b: z.string().max(2000), r: z.string().min(1).max(200).nullable() }

const CURSOR = z.discriminatedUnion('v', [
  /** section / range: the character spans still to read */
  z.object({ v: z.enum(['section', 'range']), ...common, c: z.array(span).min(1).max(200) }),
  /** outline: the scope's line spans, the detail chosen on the first page, the next entry, entries still wanted */
  z.object({
    v: z.literal('outline'),
    ...common,
    s: z.array(span).max(200).nullable(),
    d: z.number().int().min(0).max(6),
    at: z.number().int().min(0),
    n: z.number().int().min(1).nullable(),
  }),
  /** find: the query, the scope, the next match's index, matches still wanted */
  z.object({
    v: z.literal('find'),
    ...common,
    s: z.array(span).max(200).nullable(),
    q: z.string().min(1).max(2000),
    x: z.boolean(),
    i: z.boolean(),
    k: z.number().int().min(0).max(20),
    at: z.number().int().min(0),
    n: z.number().int().min(1),
  }),
])

export type Cursor = z.infer<typeof CURSOR>

const MAX_CURSOR_CHARS = 16_000

export const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url')

export function decodeCursor(raw: string): Cursor {
  let parsed: unknown = null
  if (raw.length <= MAX_CURSOR_CHARS && /^[A-Za-z0-9_-]+$/.test(raw)) {
    try {
      parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
    } catch {
      parsed = null
    }
  }
  const c = CURSOR.safeParse(parsed)
  if (!c.success)
    throw new AppError(
      'bad_request',
      'cursor: not a cursor this route gave out (send `next` from the answer as it was)',
    )
  return c.data
}
