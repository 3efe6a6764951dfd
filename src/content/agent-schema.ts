// The bodies and answers of the agent routes beside content (rest-schema.ts declares them):
// presence (where an agent is looking) and streams (Markdown written in as it is produced).
import { z } from 'zod'
import { rootName } from './root-name.js'

export const PresenceShow = z
  .strictObject(
    {
      at: z
        .string({ error: 'at must be a block id or a heading’s text' })
        .min(1, { error: 'at must be a block id or a heading’s text' })
        .max(500, { error: 'at must be a block id or a heading’s text (at most 500 characters)' })
        .optional()
        .meta({ description: 'a block id, or a heading’s text: the caret goes over that block' }),
      quote: z
        .string({ error: 'quote must be text of the document' })
        .min(1, { error: 'quote must be text of the document' })
        .max(500, { error: 'quote must be at most 500 characters' })
        .optional()
        .meta({ description: 'text to select: in the block `at` names, or the first block that holds it' }),
      root: rootName.nullish(),
    },
    { error: 'body must be a JSON object {"at"?, "quote"?, "root"?}' },
  )
  .refine((o) => o.at !== undefined || o.quote !== undefined, {
    error: 'give at (a block id or heading), quote, or both',
  })
  .meta({ id: 'PresenceShow' })

const RelativePosition = z.looseObject({}).meta({ description: 'a Yjs relative position (Y.relativePositionToJSON)' })
export const PresenceShown = z
  .looseObject({
    block: z.string(),
    cursor: z.looseObject({ anchor: RelativePosition, head: RelativePosition }),
  })
  .meta({ id: 'PresenceShown' })

const address = (what: string) =>
  z
    .string({ error: `${what} must be a block id or a heading’s text` })
    .min(1, { error: `${what} must be a block id or a heading’s text` })
    .max(1000, { error: `${what} must be at most 1000 characters` })
    .optional()

const replaceText = z
  .string({ error: 'replace must be the Markdown of the blocks to write in place of' })
  .min(1, { error: 'replace must be the Markdown of the blocks to write in place of' })
  .max(1024 * 1024, { error: 'replace must be at most 1 MiB of text' })
  .optional()

export const StreamCall = z
  .strictObject(
    {
      after: address('after').meta({ description: 'start: write after this block (id) or heading (text)' }),
      before: address('before').meta({ description: 'start: write before this block or heading' }),
      at: z
        .enum(['start', 'end'], { error: 'at must be start or end' })
        .optional()
        .meta({ description: 'start: write at the start or the end of the document' }),
      replace: replaceText.meta({
        description: 'start: write in place of the whole blocks this text matches (exactly once)',
      }),
      atomic: z
        .boolean({ error: 'atomic must be true or false' })
        .optional()
        .meta({ description: 'start: a cancelled stream removes what it wrote, in one update' }),
      root: rootName.nullish(),
      text: z
        .string({ error: 'text must be a string of Markdown' })
        .max(1024 * 1024, { error: 'a chunk is at most 1 MiB of text' })
        .optional()
        .meta({ description: '/{stream}: the next chunk of Markdown, cut anywhere' }),
    },
    {
      error:
        'body must be a JSON object: {after | before | at | replace, atomic?, root?} to start, {text} to send a chunk',
    },
  )
  .meta({ id: 'StreamCall' })

export type StreamCallBody = z.output<typeof StreamCall>

/** A stream started and written in one request (stream-body.ts): its start in the query. */
export const StreamQuery = z.object({
  after: address('after').meta({ description: 'one-request stream: write after this block or heading' }),
  before: address('before').meta({ description: 'one-request stream: write before this block or heading' }),
  at: z
    .enum(['start', 'end'], { error: 'at must be start or end' })
    .optional()
    .meta({ description: 'one-request stream: write at the start or the end' }),
  replace: replaceText.meta({ description: 'one-request stream: write in place of the blocks this text matches' }),
  atomic: z
    .enum(['true', 'false'], { error: 'atomic must be true or false' })
    .optional()
    .meta({ description: 'one-request stream: a cancelled or cut stream removes what it wrote' }),
  root: rootName.optional(),
})

export const StreamState = z
  .looseObject({
    stream: z.string(),
    base: z.string(),
    shown: z.int(),
    held: z.int(),
    changes: z.array(z.unknown()).optional(),
    suggestion: z.string().optional(),
  })
  .meta({ id: 'StreamState' })
