// The targeted edits a content PATCH may carry instead of a whole document: `str_replace` on the
// Markdown view (`old_text` -> `new_text`, once or every occurrence), Markdown inserted before or
// after a block or at either end, a block or a whole section deleted. Blocks are named by id
// (`b-...`, as the outline gives them) or by a heading's text. Checked here, before anything is
// read; a malformed edit is 400 naming it (`edits[2].after: ...`).
import { z } from 'zod'
import { AppError } from '../infra/errors.js'

/** At most this many edits in one call: they apply together or not at all. */
const MAX_EDITS = 100

/** A block: its id, or the text of a heading. */
type Address = string

export type EditOp =
  | { kind: 'replace'; old: string; new: string; all: boolean }
  | { kind: 'insert'; markdown: string; where: { before: Address } | { after: Address } | { at: 'start' | 'end' } }
  | { kind: 'delete'; block: Address; section: boolean }

const address = z.string().min(1).max(1000)

const REPLACE = z.strictObject({
  old_text: z.string().min(1),
  new_text: z.string(),
  replace_all: z.boolean().optional(),
})
const INSERT = z.strictObject({
  insert: z.string(),
  before: address.optional(),
  after: address.optional(),
  at: z.enum(['start', 'end']).optional(),
})
const DELETE = z.strictObject({ delete: address, section: z.boolean().optional() })

const SHAPES =
  '{old_text, new_text, replace_all?}, {insert, before | after | at: "start" | "end"} or {delete, section?}'

function opOf(raw: unknown, i: number): EditOp {
  const at = `edits[${i}]`
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new AppError('bad_request', `${at} must be an object: ${SHAPES}`)
  const shape =
    'old_text' in raw || 'new_text' in raw ? REPLACE : 'insert' in raw ? INSERT : 'delete' in raw ? DELETE : null
  if (!shape) throw new AppError('bad_request', `${at} must be one of ${SHAPES}`)
  const parsed = shape.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.length ? `.${issue.path.join('.')}` : ''
    const why =
      issue.code === 'unrecognized_keys'
        ? `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (${SHAPES})`
        : issue.message
    throw new AppError('bad_request', `${at}${field}: ${why}`)
  }
  const o = parsed.data as Record<string, unknown>
  if (shape === REPLACE)
    return { kind: 'replace', old: o.old_text as string, new: o.new_text as string, all: o.replace_all === true }
  if (shape === DELETE) return { kind: 'delete', block: o.delete as string, section: o.section === true }
  const places = (['before', 'after', 'at'] as const).filter((k) => o[k] !== undefined)
  if (places.length !== 1)
    throw new AppError(
      'bad_request',
      `${at}: say where to insert with exactly one of before, after (a block id or heading text) or at ("start" | "end")`,
    )
  const markdown = (o.insert as string).replace(/^\n+|\s+$/g, '')
  if (!markdown) throw new AppError('bad_request', `${at}.insert: Markdown to insert is empty`)
  const p = places[0]!
  const where =
    p === 'at'
      ? { at: o.at as 'start' | 'end' }
      : p === 'before'
        ? { before: o.before as string }
        : { after: o.after as string }
  return { kind: 'insert', markdown, where }
}

/** The `edits` of a body, checked. */
export function editOpsOf(raw: unknown): EditOp[] {
  if (!Array.isArray(raw)) throw new AppError('bad_request', `edits must be an array of ${SHAPES}`)
  if (raw.length === 0) throw new AppError('bad_request', 'edits is empty: send at least one edit')
  if (raw.length > MAX_EDITS)
    throw new AppError('bad_request', `edits: at most ${MAX_EDITS} in one call (they apply together or not at all)`)
  return raw.map(opOf)
}
