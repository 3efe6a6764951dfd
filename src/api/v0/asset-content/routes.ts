// GET /tools/asset/content: the text of an asset (a generic_doc rendered from its live Yjs document,
// other types from their stored text) and optionally its comment threads. Errors are `{"message"}`.
// An asset the caller may not view answers exactly like a missing one.
import { getAsset, permissionOf } from '../../../control/assets.js'
import { readDocContentOffLoop } from '../../../content/doc-content.js'
import { AppError } from '../../../infra/errors.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { AssetContentQuery, AssetContentResponse } from '@tandem/api/v0/asset-content'
import { loadThreads, threadOut, type ThreadsWithComments } from './threads.js'

export function assetContentRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'get',
      path: '/tools/asset/content',
      operationId: 'get_asset_content',
      summary: 'Get asset content',
      tags: ['tools'],
      query: AssetContentQuery,
      response: AssetContentResponse,
      errorShape: 'message',
      errors: { 404: 'asset not found' },
      async handler(ctx, { query, user }) {
        const asset = await getAsset(store, query.asset_id)
        if (!asset || !(await permissionOf(store, user, asset))) throw new AppError('not_found', 'Asset not found')
        // Comment records are read before the document so the doc callback stays synchronous.
        let threads: ThreadsWithComments[] | null = null
        if (query.include_comments) {
          try {
            threads = await loadThreads(store, asset.id)
          } catch (err) {
            deps.log.warn(
              { reqId: ctx.state.reqId, asset: asset.id, err: (err as Error).message },
              'comment data unreadable',
            )
          }
        }
        if (asset.type !== 'generic_doc') {
          return { content: asset.text ?? '', comments: threads ? threads.map((t) => threadOut(t, null)) : null }
        }
        // Large documents are read in a worker thread: the rooms of the process go on meanwhile.
        const anchors = (threads ?? []).flatMap((t) => (t.thread.anchor ? [t.thread.anchor] : []))
        const read = await deps.docs.withState({ org: asset.workspaceId, doc: asset.id }, (state) =>
          readDocContentOffLoop(state, anchors, query.format),
        )
        let next = 0
        return {
          content: read.text,
          comments: threads ? threads.map((t) => threadOut(t, t.thread.anchor ? read.anchored[next++]! : null)) : null,
        }
      },
    }),
  ]
}
