// Shapes of the asset-content endpoint (spec 2.5, 4.7).
import { z } from 'zod'
import { Id } from '../ids.js'

export const AssetContentQuery = z.object({
  asset_id: Id,
  include_comments: z.boolean().default(false),
  format: z
    .enum(['text', 'markdown'])
    .default('text')
    .describe(
      'beyond the spec: markdown renders a generic_doc as CommonMark (GFM tables and task lists); other assets answer their text either way',
    ),
})

const AssetComment = z
  .object({
    id: z.string(),
    content_json: z.string().describe('raw rich-text JSON of the comment'),
    text: z.string(),
    created_at: z.string().nullable().optional(),
    updated_at: z.string().nullable().optional(),
    reactions: z.record(z.string(), z.array(z.string())).optional().describe('emoji -> ids of the users who reacted'),
    user_id: z.string().nullable().optional(),
  })
  .meta({ id: 'AssetComment' })

const AssetCommentThread = z
  .object({
    id: z.string(),
    archived_at: z.string().nullable().optional(),
    resolved_at: z.string().nullable().optional(),
    created_at: z.string().nullable().optional(),
    updated_at: z.string().nullable().optional(),
    comments: z.array(AssetComment).optional(),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('thread metadata; anchored threads carry `anchor`: Yjs relative positions and the text between them'),
    level: z.enum(['asset', 'anchor']).default('asset'),
  })
  .meta({ id: 'AssetCommentThread' })

export const AssetContentResponse = z
  .object({ content: z.string(), comments: z.array(AssetCommentThread).nullable().optional() })
  .meta({ id: 'AssetContentResponse' })
