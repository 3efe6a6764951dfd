// The suggestions routes' declaration (/suggestions/v1/{org}/{doc_id}[/{id}[/accept|/reject]]):
// the list's and the view's query, the body that makes a suggestion (an update, content, or a
// branch) or decides one (its hunks). Light: hunks and the content diff load on first use.
import { STATUSES } from '@tandem/api/suggestions'
import { z } from 'zod'
import { attributions, base64Bytes } from '../collab/rest/fields.js'
import { declareRoutes } from '../collab/rest/route-model.js'
import { FORMATS } from '../content/format-names.js'
import { rootName } from '../content/rest-schema.js'

const HUNKS = 'hunks must be a non-empty list of hunk ids'

/** One body for the POSTs: making a suggestion reads the first fields, deciding one reads `hunks`. */
const SuggestionPost = z
  .object(
    {
      update: base64Bytes('update', 'update must be a base64 Yjs update').optional(),
      base: z.unknown().optional().meta({ type: 'string', description: 'the base the change was made against' }),
      format: z.enum(FORMATS, { error: `format must be one of ${FORMATS.join(', ')} (or send "update")` }).optional(),
      content: z
        .unknown()
        .optional()
        .meta({ description: 'Markdown or text as a string, ProseMirror JSON as a {type: "doc"} node' }),
      root: rootName.nullish(),
      branch: z
        .string({ error: 'branch must name another branch of this document' })
        .regex(/^[A-Za-z0-9._~-]{1,64}$/, { error: 'branch must name another branch of this document' })
        .optional(),
      attributions: attributions.optional(),
      hunks: z
        .array(z.string({ error: HUNKS }), { error: HUNKS })
        .min(1, { error: HUNKS })
        .optional(),
    },
    { error: 'body must be a JSON object' },
  )
  .meta({ id: 'SuggestionPost' })

export type SuggestionBody = z.output<typeof SuggestionPost>

const SuggestionView = z
  .looseObject({
    id: z.string(),
    base: z.string(),
    root: z.string().nullable(),
    by: z.string(),
    created_at_ms: z.int(),
    status: z.enum(STATUSES),
    accepted_hunks: z.array(z.string()),
    rejected_hunks: z.array(z.string()),
  })
  .meta({ id: 'Suggestion' })

export const SUGGESTION_ROUTES = declareRoutes({
  suggestions: {
    GET: {
      summary:
        'The suggestions (by status); with `/{id}`, one with its hunks and the document as it would read if accepted now',
      access: 'r',
      id: 'optional',
      query: z.object({
        status: z.enum(STATUSES, { error: `status must be one of ${STATUSES.join(', ')}` }).optional(),
        format: z
          .enum([...FORMATS, 'delta'], { error: `format must be one of ${FORMATS.join(', ')}, delta` })
          .optional(),
      }),
      answers: {
        200: {
          description: 'the list, or one suggestion shown',
          json: z.union([
            z.object({ suggestions: z.array(SuggestionView) }),
            z.looseObject({
              suggestion: SuggestionView,
              format: z.string(),
              hunks: z.array(z.looseObject({ id: z.string(), status: z.string() })),
              preview: z.unknown(),
            }),
          ]),
        },
      },
    },
    POST: {
      summary:
        'Make a suggestion ({update, base?}, {format, content, base?, root?} or {branch}); /{id}/accept or /{id}/reject decides it, whole or by hunks',
      access: 'rw',
      id: 'optional',
      actions: ['accept', 'reject'],
      agentsWithdraw: true,
      body: { json: SuggestionPost, optional: true },
      answers: {
        200: { description: 'decided', json: z.object({ suggestion: SuggestionView, applied: z.boolean() }) },
        201: { description: 'made', json: z.object({ suggestion: SuggestionView, hunks: z.array(z.string()) }) },
      },
      errors: {
        409: 'decided already, being decided, or too many open',
        422: 'a change that changes nothing, unknown hunks, attributions past their limits',
      },
    },
  },
})
