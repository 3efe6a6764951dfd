// The history routes' declaration: GET activity and changeset (their query), POST rollback (its
// body). Light: the history engine is loaded on the first history request, these checks at start.
import { ATTRIBUTION_KEY } from '@tandem/api/attributions'
import { z } from 'zod'
import { attributionProblem } from '../auth/attributions.js'
import { flag, msParam } from '../collab/rest/fields.js'
import { declareRoutes } from '../collab/rest/route-model.js'

/** `by=user` (repeatable): who made the changes; none given is everyone. */
const byParam = z
  .array(
    z
      .string()
      .min(1, { error: 'by must be a non-empty user id' })
      .max(256, { error: 'by must be a non-empty user id' }),
  )
  .transform((all) => new Set(all) as ReadonlySet<string>)
  .optional()

/** `attr=key:value` (repeatable, all must match). */
const attrParam = z
  .array(z.string())
  .transform((all, ctx) => {
    const filter = new Map<string, string>()
    for (const raw of all) {
      const colon = raw.indexOf(':')
      const key = colon < 0 ? raw : raw.slice(0, colon)
      if (colon < 0 || !ATTRIBUTION_KEY.test(key)) {
        ctx.addIssue({
          code: 'custom',
          message: `attr must be key:value with a key of [a-z0-9_]{1,32}, got ${JSON.stringify(raw.slice(0, 80))}`,
        })
        return z.NEVER
      }
      const value = raw.slice(colon + 1)
      if (filter.has(key) && filter.get(key) !== value) {
        ctx.addIssue({ code: 'custom', message: `attr ${key} is given two different values` })
        return z.NEVER
      }
      filter.set(key, value)
    }
    return filter as ReadonlyMap<string, string>
  })
  .optional()

const windowQuery = { from: msParam('from').optional(), to: msParam('to').optional(), by: byParam, attr: attrParam }

const ActivityQuery = z.object({
  ...windowQuery,
  limit: msParam('limit')
    .refine((n) => n >= 1, { error: 'limit must be at least 1' })
    .optional(),
  order: z
    .enum(['asc', 'desc'], { error: (iss) => `order must be asc or desc, got ${JSON.stringify(iss.input)}` })
    .optional(),
  group: flag('group').optional(),
  groupMaxGap: msParam('groupMaxGap').optional(),
  delta: flag('delta').optional(),
})

const ChangesetQuery = z.object({ ...windowQuery, ydoc: flag('ydoc').optional(), delta: flag('delta').optional() })

const time = (name: string) => {
  const error = `${name} must be a non-negative integer (ms)`
  return z.int({ error }).min(0, { error }).max(Number.MAX_SAFE_INTEGER, { error }).optional()
}
const BY = 'by must be a user id or a non-empty list of user ids'
const VERSION = 'version must be the id of a named version'

/**
 * `{to}` restores the document at `to`; `{version}` a named version; `{from, to, by?, attr?}` undoes that window's
 * changes.
 */
const RollbackBody = z
  .object(
    {
      version: z.string({ error: VERSION }).min(1, { error: VERSION }).optional(),
      to: time('to'),
      from: time('from'),
      by: z
        .union(
          [
            z.string().min(1, { error: BY }),
            z.array(z.string({ error: BY }).min(1, { error: BY }), { error: BY }).min(1, { error: BY }),
          ],
          { error: BY },
        )
        .optional(),
      attr: z
        .unknown()
        .superRefine((v, ctx) => {
          const problem =
            attributionProblem(v) ??
            (Object.keys(v as object).length === 0 ? 'attr must name at least one attribution' : null)
          if (problem) ctx.addIssue({ code: 'custom', message: problem })
        })
        .transform((v) => new Map(Object.entries(v as Record<string, string>)) as ReadonlyMap<string, string>)
        .optional()
        .meta({
          type: 'object',
          additionalProperties: { type: 'string' },
          description: 'attributions the undone changes carry (all of them)',
        }),
    },
    { error: 'body must be a JSON object' },
  )
  .superRefine((o, ctx) => {
    const fail = (message: string) => ctx.addIssue({ code: 'custom', message })
    if (o.version !== undefined) {
      if (Object.keys(o).some((k) => k !== 'version' && o[k as keyof typeof o] !== undefined))
        fail('version goes alone: {"version": id}')
    } else if (o.to === undefined) fail('to must be a non-negative integer (ms)')
    else if (o.from === undefined) {
      if (o.by !== undefined || o.attr !== undefined) fail('by and attr need a window: send from and to')
    } else if (o.from > o.to) fail(`from (${o.from}) is after to (${o.to})`)
  })
  .transform((o) =>
    o.version !== undefined
      ? { kind: 'version' as const, version: o.version }
      : o.from === undefined
        ? { kind: 'to' as const, to: o.to! }
        : {
            kind: 'window' as const,
            from: o.from,
            to: o.to!,
            by: o.by === undefined ? null : (new Set(typeof o.by === 'string' ? [o.by] : o.by) as ReadonlySet<string>),
            attr: o.attr ?? null,
          },
  )
  .meta({ id: 'RollbackRequest' })

const entries = z.looseObject({
  entries: z.array(z.looseObject({ from: z.int(), to: z.int(), by: z.string() })),
  retainedFrom: z.int(),
  truncated: z.boolean(),
})

export const HISTORY_ROUTES = declareRoutes({
  activity: {
    GET: {
      summary: 'Who edited when: entries {from, to, by} in ms, filtered, grouped per user within a gap',
      access: 'r',
      query: ActivityQuery,
      answers: {
        200: { description: 'the entries, and how far back history reaches', json: entries.meta({ id: 'Activity' }) },
      },
    },
  },
  changeset: {
    GET: {
      summary: 'What changed between from and to: the content with insertions and deletions marked',
      access: 'r',
      query: ChangesetQuery,
      answers: {
        200: {
          description: 'the window, its counts and the marked roots',
          json: z
            .looseObject({
              from: z.int(),
              to: z.int(),
              retainedFrom: z.int(),
              truncated: z.boolean(),
              ydoc: z.string().optional(),
              roots: z.unknown().optional(),
            })
            .meta({ id: 'Changeset' }),
        },
      },
    },
  },
  rollback: {
    POST: {
      summary: 'Restore the document at a time or a named version, or undo a window of changes',
      access: 'rw',
      body: { json: RollbackBody, anyMedia: true },
      answers: {
        200: {
          description: 'what the rollback changed',
          json: z
            .object({ applied: z.boolean(), removed: z.int(), restored: z.int(), reformatted: z.int() })
            .meta({ id: 'RollbackResult' }),
        },
      },
    },
  },
})
