// Shapes of the comment endpoint (beyond the spec: the spec's asset content only reads threads).
import { z } from 'zod'
import { Id } from '../ids.js'

export const CommentParams = z.object({ asset_id: Id })

export const CommentRequest = z
  .object({
    text: z.string().min(1).max(10_000).describe('the comment, plain text'),
    thread_id: Id.optional().describe('add to this thread of the asset instead of starting one'),
    quote: z
      .string()
      .min(1)
      .max(1_000)
      .optional()
      .describe('a new thread anchored to the first occurrence of this text in the document'),
  })
  .meta({ id: 'CommentRequest' })

export const CommentResponse = z
  .object({
    thread_id: z.string(),
    comment_id: z.string(),
    anchored: z.boolean().describe('whether the thread is anchored to document text'),
  })
  .meta({ id: 'CommentResponse' })
