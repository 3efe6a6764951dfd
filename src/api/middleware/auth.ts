// X-API-KEY authentication: the caller's user id goes to ctx.state.user. Missing, malformed, unknown
// and revoked keys are all 401 with the same message shape; the key itself is never logged.
import type { Context } from 'koa'
import { authenticateApiKey, type KeyCaller } from '../../control/api-keys.js'
import type { ControlStore } from '../../control/store.js'
import { AppError } from '../../infra/errors.js'

export async function authenticate(ctx: Context, store: ControlStore): Promise<KeyCaller> {
  const presented = ctx.get('x-api-key')
  if (!presented) throw new AppError('unauthorized', 'Missing API key')
  const caller = await authenticateApiKey(store, presented)
  if (!caller) throw new AppError('unauthorized', 'Invalid API key')
  ctx.state.user = caller.user
  return caller
}
