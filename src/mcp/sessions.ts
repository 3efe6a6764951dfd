// MCP over Streamable HTTP on the API listener: one session per `initialize`, kept in this process
// (the MCP client keeps its session id; a client sent to another node starts a new session there),
// bound to the API key and workspace that opened it. A session remembers the client's name for
// the attributions of its edits and the tools the workspace's registry lets it see.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Unread } from './body.js'
import type { Logger } from '../infra/log.js'
import { TandemApi } from './api.js'
import type { McpTool } from '../control/tool-catalog.js'
import type { SessionAssets } from './session-assets.js'
import { INSTRUCTIONS, registerTools } from './tools.js'

/** Who calls, as the API route established it. */
export interface McpCaller {
  user: string
  apiKey: string
  workspace: string
  /** the tools the workspace's registry leaves enabled */
  tools: ReadonlySet<McpTool>
  /** this API listener, as the request reached it */
  origin: string
  /** the assets the session may reach, and agents' tokens for its documents */
  assets: SessionAssets
}

interface Session {
  transport: StreamableHTTPServerTransport
  server: McpServer
  api: TandemApi
  user: string
  keyDigest: Buffer
  workspace: string
  lastUsedMs: number
}

export interface McpSessionOptions {
  log: Logger
  /** open sessions at most; an initialize past it closes the longest idle one */
  maxSessions: number
  /** a session unused this long is closed (ms) */
  idleMs: number
}

const digest = (key: string) => createHash('sha256').update(key).digest()
const SERVER_INFO = { name: 'tandem', version: '0.1.0' }

function rpcError(res: ServerResponse, status: number, message: string): void {
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>()
  private readonly sweeper: NodeJS.Timeout

  constructor(private readonly o: McpSessionOptions) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(o.idleMs, 60_000)))
    this.sweeper.unref()
  }

  get size(): number {
    return this.sessions.size
  }

  /** The caller's session the request names; another key's answers like a missing one (its id is no credential). */
  private sessionOf(sid: string, caller: McpCaller): Session | null {
    const s = this.sessions.get(sid)
    if (
      !s ||
      s.user !== caller.user ||
      s.workspace !== caller.workspace ||
      !timingSafeEqual(s.keyDigest, digest(caller.apiKey))
    )
      return null
    s.lastUsedMs = Date.now()
    return s
  }

  /** Serves one request: `body` is the parsed JSON of a POST (undefined for GET and DELETE). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown, caller: McpCaller): Promise<void> {
    const sid = req.headers['mcp-session-id']
    if (typeof sid === 'string') {
      const s = this.sessionOf(sid, caller)
      if (!s) return rpcError(res, 404, 'session not found: initialize a new one')
      return s.transport.handleRequest(req, res, body)
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return rpcError(res, 400, 'no mcp-session-id: send an initialize request first')
    if (this.sessions.size >= this.o.maxSessions) this.closeIdlest()
    const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS })
    const clientName = () => server.server.getClientVersion()?.name ?? ''
    const api = new TandemApi(caller.origin, caller.apiKey, caller.workspace, caller.assets)
    // the id is chosen here so the tokens minted for the session can name it: one agent per session in a room
    const sessionId = randomUUID()
    caller.assets.forSession(() => ({ id: sessionId, name: clientName().slice(0, 100) || 'agent' }))
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.sessions.set(id, {
          transport,
          server,
          api,
          user: caller.user,
          keyDigest: digest(caller.apiKey),
          workspace: caller.workspace,
          lastUsedMs: Date.now(),
        })
      },
    })
    transport.onclose = () => {
      const s = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined
      if (s) this.end(transport.sessionId!, s)
    }
    registerTools(server, api, caller.tools, clientName)
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  }

  /**
   * A message /mcp could not read (mcp/body.ts). A tool call in the caller's session is answered as
   * that call, a tool error naming the limit, so the agent reads it like any refusal and the session
   * goes on; anything else gets the JSON-RPC error with the same reason.
   */
  answerUnread(req: IncomingMessage, res: ServerResponse, u: Unread, caller: McpCaller): void {
    const sid = req.headers['mcp-session-id']
    const { id, method } = u.envelope
    const text = `${u.status}: ${u.reason}`
    if (typeof sid === 'string' && this.sessionOf(sid, caller) && id !== undefined && method === 'tools/call') {
      const result: CallToolResult = { isError: true, content: [{ type: 'text', text }] }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }))
      return
    }
    res
      .writeHead(u.status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: text }, id: id ?? null }))
  }

  private closeIdlest(): void {
    let idlest: [string, Session] | null = null
    for (const e of this.sessions) if (!idlest || e[1].lastUsedMs < idlest[1].lastUsedMs) idlest = e
    if (idlest) this.end(idlest[0], idlest[1])
  }

  private sweep(): void {
    const now = Date.now()
    for (const [id, s] of this.sessions) if (now - s.lastUsedMs > this.o.idleMs) this.end(id, s)
  }

  private end(id: string, s: Session): void {
    if (this.sessions.get(id) !== s) return
    this.sessions.delete(id)
    s.server.close().catch((err: unknown) => this.o.log.warn({ err }, 'closing an MCP session failed'))
    // its agent leaves the documents it was in now, not a TTL later
    s.api.leave().catch((err: unknown) => this.o.log.warn({ err }, 'an MCP session did not leave its documents'))
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
    const all = [...this.sessions]
    this.sessions.clear()
    await Promise.allSettled(all.map(([, s]) => Promise.all([s.server.close(), s.api.leave()])))
  }
}
