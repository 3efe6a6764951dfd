// X-API-KEY authentication: the caller's user id goes to ctx.state.user. Missing, malformed, unknown
// and revoked keys are all 401 with the same message shape; the key itself is never logged.
import type { Context } from 'koa'
import { authenticateApiKey } from '../../control/api-keys.js'
import type { ControlStore } from '../../control/store.js'
import { AppError } from '../../infra/errors.js'

export async function authenticate(ctx: Context, store: ControlStore): Promise<string> {
  const presented = ctx.get('x-api-key')
  if (!presented) throw new AppError('unauthorized', 'Missing API key')
  const user = await authenticateApiKey(store, presented)
  if (!user) throw new AppError('unauthorized', 'Invalid API key')
  ctx.state.user = user
  return user
}
