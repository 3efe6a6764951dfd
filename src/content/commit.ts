// A content write's update applied through the room like any editor's: durable before the call
// answers, attributed to the token's user, broadcast. A malformed update is the caller's 400.
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import type { Attributes } from '../storage/doc-store.js'

/** The log seq of the update (null: it changed nothing). */
export async function commit(
  req: RestRequest,
  ctx: RestContext,
  update: Uint8Array,
  attrs: Attributes | undefined,
): Promise<number | null> {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  try {
    return await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, update, req.cap.sub, attrs))
  } catch (err) {
    if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
    throw err
  }
}
