// One declaration per endpoint: method, path, zod schemas of its inputs and output, and the handler.
// The same declaration mounts the Koa route, validates the request (pydantic-shaped 422s) and
// describes the operation in the OpenAPI document.
import type Router from '@koa/router'
import type { Context } from 'koa'
import type { z } from 'zod'
import type { KeyCaller } from '../control/api-keys.js'
import { AppError } from '../infra/errors.js'
import { readJsonBody, type BodyLimits } from './middleware/body.js'
import { checkParams, check, type PydanticError } from './validation/pydantic.js'

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete'
/** 401 and 404 on asset content are `{"message": ...}`; everything else `{"detail": ...}`. */
type ErrorShape = 'detail' | 'message'

type Obj = z.ZodObject
type Out<S> = S extends z.ZodType ? z.output<S> : undefined

interface RouteInput<P, Q, B> {
  params: Out<P>
  query: Out<Q>
  body: Out<B>
  /** The authenticated caller (user id, an e-mail). */
  user: string
  /** the caller's key or user is an agent's (src/agents/) */
  agent: boolean
}

export interface RouteDef<
  P extends Obj | undefined = Obj | undefined,
  Q extends Obj | undefined = Obj | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method
  /** Koa path below /api/v0, with `:name` parameters named as in the spec */
  path: string
  operationId: string
  summary: string
  tags: string[]
  params?: P
  query?: Q
  body?: B
  /** An absent body counts as `{}` (every field of the body is optional). */
  bodyOptional?: boolean
  response: z.ZodType
  /** The success status when not 200 (201 created, 204 without a body). */
  successStatus?: 201 | 204
  /** Error statuses this operation documents, besides 401 and 422. */
  errors?: Record<number, string>
  errorShape?: ErrorShape
  /** Skip X-API-KEY (none of the spec's endpoints do). */
  public?: boolean
  /** Body numbers a double cannot hold reach the handler as their digits (exact-json.ts). */
  exactNumbers?: boolean
  handler(ctx: Context, input: RouteInput<P, Q, B>): Promise<unknown>
}

export const defineRoute = <
  P extends Obj | undefined = undefined,
  Q extends Obj | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  def: RouteDef<P, Q, B>,
): RouteDef => def as unknown as RouteDef

export class ValidationFailed extends AppError {
  constructor(readonly errors: PydanticError[]) {
    super('validation', 'validation error', { details: errors })
  }
}

/** Query values as FastAPI sees them: a repeated scalar parameter takes its last value. */
function lastValues(q: Record<string, string | string[] | undefined>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(q).map(([k, v]) => [k, Array.isArray(v) ? v[v.length - 1] : v]))
}

/** Validates path, query and body together, so one 422 lists every problem. */
async function validateInput(
  ctx: Context,
  route: RouteDef,
  limits: BodyLimits,
): Promise<{ params: unknown; query: unknown; body: unknown }> {
  const errors: PydanticError[] = []
  const params = route.params ? checkParams(route.params, ctx.params ?? {}, 'path', errors) : undefined
  const query = route.query ? checkParams(route.query, lastValues(ctx.query), 'query', errors) : undefined
  let body: unknown
  if (route.body) {
    const raw = await readJsonBody(ctx, limits, { exactNumbers: route.exactNumbers === true })
    if (raw.kind === 'invalid')
      errors.push({
        type: 'json_invalid',
        loc: ['body', raw.pos],
        msg: 'JSON decode error',
        input: {},
        ctx: { error: raw.msg },
      })
    else if (raw.kind === 'empty' && !route.bodyOptional)
      errors.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null })
    else body = check(route.body, raw.kind === 'empty' ? {} : raw.value, ['body'], errors)
  }
  if (errors.length) throw new ValidationFailed(errors)
  return { params, query, body }
}

export interface MountOptions {
  body: BodyLimits
  /** Resolves the caller from X-API-KEY (throws 401). */
  authenticate(ctx: Context): Promise<KeyCaller>
}

export function mountRoute(router: Router, route: RouteDef, o: MountOptions): void {
  router[route.method](route.operationId, route.path, async (ctx) => {
    ctx.state.errorShape = route.errorShape ?? 'detail'
    const { user, agent } = route.public ? { user: '', agent: false } : await o.authenticate(ctx)
    const input = await validateInput(ctx, route, o.body)
    const result = await route.handler(ctx, { ...input, user, agent } as RouteInput<never, never, never>)
    if (ctx.body === undefined) ctx.body = result
  })
}
