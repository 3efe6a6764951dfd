// A content write's update applied through the room like any editor's: durable before the call
// answers, attributed to the token's user, broadcast. A malformed update is the caller's 400. An
// agent's write also puts the agent in the room (agent-presence.ts), its caret at the end of what
// it wrote, once the update is durable and sent: the caret never names text nobody has.
import type { RestContext, RestRequest } from '../collab/rest/route-model.js'
import { AppError } from '../infra/errors.js'
import type { Attributes } from '../storage/doc-store.js'
import { caretAfterUpdate } from './caret.js'
import { showAgent } from './presence.js'

/** The log seq of the update (null: it changed nothing). */
export async function commit(
  req: RestRequest,
  ctx: RestContext,
  update: Uint8Array,
  attrs: Attributes | undefined,
): Promise<number | null> {
  const ref = { org: req.org, doc: req.doc, branch: req.cap.branch }
  let seq: number | null
  try {
    seq = await ctx.storageHealth.untilDurable(ctx.registry.docs.applyUpdate(ref, update, req.cap.sub, attrs))
  } catch (err) {
    if (err instanceof AppError && err.code === 'malformed_message') throw new AppError('bad_request', err.message)
    throw err
  }
  await showAgent(req, ctx, seq === null ? undefined : caretAfterUpdate(update))
  return seq
}
