// `/mcp` on the API listener: the MCP endpoint (Streamable HTTP) for agent runtimes. The caller is
// an API key (`X-API-KEY`, or `Authorization: Bearer <key>` as MCP clients send it), counted by the
// same failure throttle as /api/v0; the workspace is `?workspace=` or `X-Tandem-Workspace` (or the
// caller's only one). A POST's body may be as large as a document written back (mcp/body.ts), and
// one it cannot read is answered as a refusal of that message. The MCP SDK's engine
// (mcp/sessions.ts) loads on the first request.
import type { Context } from 'koa'
import { authenticateApiKey } from '../control/api-keys.js'
import { MCP_TOOLS, type McpTool } from '../control/tool-catalog.js'
import { getRegistry } from '../control/tool-registry.js'
import { listWorkspaces, roleOf } from '../control/workspaces.js'
import { PM_JSON_DEPTH } from '../content/depth.js'
import { AppError } from '../infra/errors.js'
import { readMcpBody } from '../mcp/body.js'
import { SessionAssets, type SessionAssetDeps } from '../mcp/session-assets.js'
import type { McpSessions } from '../mcp/sessions.js'
import type { ApiContext } from './context.js'
import { throttleAuthFailures } from './middleware/auth-throttle.js'

const MAX_SESSIONS = 1000
const IDLE_MS = 30 * 60 * 1000 // 30 min

function presentedKey(ctx: Context): string {
  const header = ctx.get('x-api-key')
  if (header) return header
  const m = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))
  if (!m) throw new AppError('unauthorized', 'Missing API key')
  return m[1]!
}

async function workspaceOf(ctx: Context, api: ApiContext, user: string): Promise<string> {
  const named = (ctx.query.workspace as string | undefined) || ctx.get('x-tandem-workspace')
  if (named) {
    if (!(await roleOf(api.control.store, named, user))) throw new AppError('not_found', 'Workspace not found')
    return named
  }
  const mine = await listWorkspaces(api.control.store, user)
  if (mine.length !== 1)
    throw new AppError('bad_request', 'name the workspace: ?workspace=ID or the X-Tandem-Workspace header')
  return mine[0]!.id
}

/** The tools the workspace's registry leaves enabled: an override's `enabled`, else the default visibility. */
async function enabledTools(api: ApiContext, workspace: string): Promise<Set<McpTool>> {
  const reg = await getRegistry(api.control.store, api.control.catalog, workspace)
  const overrides = new Map(reg.tools.map((t) => [t.tool_id, t.enabled]))
  return new Set(MCP_TOOLS.filter((t) => overrides.get(t) ?? reg.default_visibility === 'visible'))
}

/** JSON levels a tools/call adds around a tool's argument: the message, its params, the arguments. */
const MCP_ENVELOPE_DEPTH = 4

export function mcpRoute(api: ApiContext): (ctx: Context) => Promise<void> {
  const { deps } = api
  const authenticate = throttleAuthFailures(deps.config.authFailuresPerMinPerIp, deps.metrics, async (ctx) => {
    const caller = await authenticateApiKey(api.control.store, presentedKey(ctx))
    if (!caller) throw new AppError('unauthorized', 'Invalid API key')
    return caller.user
  })
  // a ProseMirror document at the content depth limit, inside a tools/call's JSON-RPC envelope
  // (message, params, arguments), must reach edit_document: whatever a read returns writes back
  const maxDepth = Math.max(deps.config.maxJsonDepth, PM_JSON_DEPTH + MCP_ENVELOPE_DEPTH)
  const bodyLimits = { maxDocBytes: deps.config.maxDocBytes, maxBodyBytes: deps.config.maxBodyBytes, maxDepth }
  const assetDeps: SessionAssetDeps = {
    store: api.control.store,
    keys: deps.keys,
    now: deps.now,
    restUrl: () => deps.publicUrls().restUrl,
    ttlSec: deps.config.tokenTtlSec,
  }
  let sessions: Promise<McpSessions> | undefined
  const open = () =>
    (sessions ??= import('../mcp/sessions.js').then((m) => {
      const s = new m.McpSessions({ log: deps.log, maxSessions: MAX_SESSIONS, idleMs: IDLE_MS })
      api.onClose(() => s.close())
      return s
    }))
  return async (ctx) => {
    if (!['GET', 'POST', 'DELETE'].includes(ctx.method))
      throw new AppError('method_not_allowed', `${ctx.method} is not supported on /mcp`)
    const user = await authenticate(ctx)
    // read whole before anything answers: a refusal is told as an answer to the message (mcp/body.ts)
    const read = ctx.method === 'POST' ? await readMcpBody(ctx, bodyLimits) : undefined
    const workspace = await workspaceOf(ctx, api, user)
    const tools = await enabledTools(api, workspace)
    const local = ctx.req.socket.localAddress ?? '127.0.0.1'
    const origin = `http://${local.includes(':') ? `[${local}]` : local}:${ctx.req.socket.localPort}`
    const s = await open()
    ctx.respond = false
    const caller = {
      user,
      apiKey: presentedKey(ctx),
      workspace,
      tools,
      origin,
      assets: new SessionAssets(assetDeps, user, workspace),
    }
    if (read?.kind === 'unread') return s.answerUnread(ctx.req, ctx.res, read, caller)
    await s.handle(ctx.req, ctx.res, read?.value, caller)
  }
}
