// The comment tools: comment (a new thread, anchored to a quote, or a reply) and read_comments (an
// asset's threads with their comments, the text each anchor spans now and whether it still
// resolves, their state), a page at a time. Both map onto /api/v0 with the caller's own key: the
// threads come from `GET /tools/asset/content?include_comments=true` (interface spec 4.7).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { McpTool } from '../control/tool-catalog.js'
import type { TandemApi, ThreadOut } from './api.js'
import { structured } from './answer.js'
import { ANY_ASSET_ID, limit, OFFSET, READ_ONLY } from './params.js'

const THREADS_PAGE = 20
const MAX_THREADS_PAGE = 50
/** Comments shown per thread (the first ones: the opening comment and the replies to it). */
const MAX_COMMENTS = 50
/** A comment's text is cut past this many characters (and says so). */
const MAX_COMMENT_CHARS = 4000

const STATE = z.enum(['open', 'resolved', 'archived'])
type State = z.infer<typeof STATE>

const THREAD = z.object({
  thread_id: z.string().describe('reply in it with comment {thread_id}'),
  state: STATE,
  anchor: z
    .object({
      quote: z
        .string()
        .nullable()
        .describe(
          'the text the thread is anchored to, as the document reads now; null when the anchor no longer resolves',
        ),
      resolves: z
        .boolean()
        .describe('false when the quoted text was deleted: the thread no longer points at the document'),
    })
    .nullable()
    .describe('null for a thread on the asset as a whole'),
  created_at: z.string().nullable(),
  resolved_at: z.string().nullable(),
  archived_at: z.string().nullable(),
  comment_count: z.number(),
  comments: z.array(
    z.object({
      comment_id: z.string(),
      user_id: z.string().nullable(),
      text: z.string(),
      created_at: z.string().nullable(),
      truncated: z.boolean().optional(),
    }),
  ),
})

const OUTPUT = {
  threads: z.array(THREAD).describe('oldest first'),
  total: z.number().describe('threads matching `state`'),
  next_offset: z.number().optional().describe('more follow: call again with offset = next_offset'),
}

const stateOf = (t: ThreadOut): State => (t.archived_at ? 'archived' : t.resolved_at ? 'resolved' : 'open')

function threadView(t: ThreadOut): z.infer<typeof THREAD> {
  const anchored = t.level === 'anchor' || t.data?.anchor !== undefined
  const spans = t.data?.anchor?.text ?? null
  // an anchor whose text was all deleted collapses to nothing: it no longer points at the document
  const resolves = typeof spans === 'string' && spans.length > 0
  const comments = t.comments ?? []
  return {
    thread_id: t.id,
    state: stateOf(t),
    anchor: anchored ? { quote: resolves ? spans : null, resolves } : null,
    created_at: t.created_at ?? null,
    resolved_at: t.resolved_at ?? null,
    archived_at: t.archived_at ?? null,
    comment_count: comments.length,
    comments: comments.slice(0, MAX_COMMENTS).map((c) => ({
      comment_id: c.id,
      user_id: c.user_id ?? null,
      text: c.text.length > MAX_COMMENT_CHARS ? c.text.slice(0, MAX_COMMENT_CHARS) : c.text,
      created_at: c.created_at ?? null,
      ...(c.text.length > MAX_COMMENT_CHARS ? { truncated: true } : {}),
    })),
  }
}

export function registerCommentTools(server: McpServer, api: TandemApi, on: (t: McpTool) => boolean): void {
  if (on('read_comments')) {
    server.registerTool(
      'read_comments',
      {
        title: 'Read comment threads',
        description: `An asset's comment threads, oldest first, ${THREADS_PAGE} a page: each with its state (open, resolved, archived), the text it is anchored to as the document reads now and whether that anchor still resolves, and its comments (author, text). Reply with comment {thread_id}.`,
        inputSchema: {
          asset_id: ANY_ASSET_ID,
          state: STATE.optional().describe('Only threads in this state (default: all).'),
          offset: OFFSET,
          limit: limit(THREADS_PAGE, MAX_THREADS_PAGE),
        },
        outputSchema: OUTPUT,
        annotations: { title: 'Read comment threads', ...READ_ONLY },
      },
      ({ asset_id, state, offset = 0, limit = THREADS_PAGE }) =>
        structured(async () => {
          const threads = await api.commentThreads(asset_id)
          if (!threads) throw new Error("503: this asset's comment data could not be read; ask again later")
          const chosen = threads.filter((t) => state === undefined || stateOf(t) === state)
          const next = offset + limit
          return {
            threads: chosen.slice(offset, next).map(threadView),
            total: chosen.length,
            ...(next < chosen.length ? { next_offset: next } : {}),
          }
        }),
    )
  }
  if (on('comment')) {
    server.registerTool(
      'comment',
      {
        title: 'Comment',
        description:
          'Comments on an asset: a new thread (anchored to the first occurrence of `quote` in the document when given) or a reply in `thread_id`. Answers {thread_id, comment_id, anchored}.',
        inputSchema: {
          asset_id: ANY_ASSET_ID,
          text: z.string().describe('The comment, plain text.'),
          quote: z
            .string()
            .optional()
            .describe(
              'Start a thread anchored to this exact text of the document (its first occurrence); not with thread_id.',
            ),
          thread_id: z
            .string()
            .optional()
            .describe('Reply in this thread (a thread_id from read_comments) instead of starting one.'),
        },
        outputSchema: { thread_id: z.string(), comment_id: z.string(), anchored: z.boolean() },
        // adds a comment, never changes or removes one; each call adds another
        annotations: {
          title: 'Comment',
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      ({ asset_id, text, quote, thread_id }) =>
        structured(
          () =>
            api.comment(asset_id, {
              text,
              ...(quote ? { quote } : {}),
              ...(thread_id ? { thread_id } : {}),
            }) as Promise<Record<string, unknown>>,
        ),
    )
  }
}
