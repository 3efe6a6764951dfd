// POST /assets/{asset_id}/comments: the caller comments on an asset it may see, in a new thread
// (anchored to a quote of a generic_doc's text when asked) or in one of the asset's threads. An
// asset the caller may not view answers exactly like a missing one. Beyond the spec: the MCP
// `comment` tool maps onto it.
import { getAsset, permissionOf } from '../../../control/assets.js'
import { addComment, createThread, newThread, requireThread, type TextAnchor } from '../../../control/comments.js'
import { anchorQuote } from '../../../content/doc-text.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { CommentParams, CommentRequest, CommentResponse } from '@tandem/api/v0/comments'

export function commentRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'post',
      path: '/assets/:asset_id/comments',
      operationId: 'create_comment',
      summary: 'Comment on an asset',
      tags: ['assets'],
      params: CommentParams,
      body: CommentRequest,
      response: CommentResponse,
      successStatus: 201,
      errors: {
        400: 'quote not found in the document, or given with thread_id',
        404: 'asset (or thread of it) not found',
      },
      async handler(_ctx, { params, body, user }) {
        const asset = await getAsset(store, params.asset_id)
        if (!asset || !(await permissionOf(store, user, asset))) throw new AppError('not_found', 'Asset not found')
        if (body.thread_id && body.quote)
          throw new AppError('bad_request', 'quote starts a thread: give either thread_id or quote')
        let threadId = body.thread_id
        let anchored = false
        if (threadId) {
          const thread = await requireThread(store, threadId).catch(() => null)
          if (!thread || thread.assetId !== asset.id) throw new AppError('not_found', 'Thread not found')
          anchored = thread.anchor !== undefined
        } else {
          let anchor: TextAnchor | undefined
          if (body.quote) {
            if (asset.type !== 'generic_doc')
              throw new AppError('bad_request', 'only generic_doc threads can be anchored to text')
            const quote = body.quote
            anchor =
              (await deps.docs.withDoc({ org: asset.workspaceId, doc: asset.id }, (doc) => anchorQuote(doc, quote))) ??
              undefined
            if (!anchor) throw new AppError('bad_request', `text ${JSON.stringify(quote)} not found in the document`)
          }
          threadId = (await createThread(store, newThread(asset.id, anchor ? { anchor } : {}, deps.now()))).id
          anchored = anchor !== undefined
        }
        const comment = await addComment(store, threadId, { user, text: body.text }, deps.now())
        return { thread_id: threadId, comment_id: comment.id, anchored }
      },
    }),
  ]
}
