// `tandem mcp`: an MCP server on stdin/stdout for agent runtimes that start their tools as local
// processes (Claude Desktop and the like). It holds no logic of its own: every message goes to the
// server's `/mcp` endpoint with the caller's API key and comes back, so the tools, the caller's
// rights and the workspace's tool registry are exactly those of the HTTP endpoint.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export interface BridgeOptions {
  /** the API listener, e.g. http://127.0.0.1:8080 */
  apiUrl: string
  apiKey: string
  workspace?: string | undefined
  /** where problems are told (stderr: stdout is the protocol's) */
  warn: (line: string) => void
}

/** Runs until stdin closes. */
export async function runBridge(o: BridgeOptions): Promise<void> {
  const url = new URL('/mcp', o.apiUrl)
  if (o.workspace) url.searchParams.set('workspace', o.workspace)
  const upstream = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': o.apiKey } } })
  const local = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve()
  })
  upstream.onmessage = (m) => {
    // The negotiated version goes on every later request, as an MCP client's transport does.
    const version = (m as { result?: { protocolVersion?: unknown } }).result?.protocolVersion
    if (typeof version === 'string') upstream.setProtocolVersion(version)
    void local.send(m)
  }
  upstream.onerror = (err) => o.warn(`tandem mcp: ${err.message}`)
  local.onmessage = (m: JSONRPCMessage) => {
    upstream.send(m).catch((err: Error) => {
      o.warn(`tandem mcp: ${err.message}`)
      // A request the server never answered still gets an answer, so the agent does not wait forever.
      const id = (m as { id?: string | number }).id
      if (id !== undefined && 'method' in m)
        void local.send({
          jsonrpc: '2.0',
          id,
          error: { code: -32000, message: `Tandem at ${o.apiUrl}: ${err.message}` },
        })
    })
  }
  await upstream.start()
  await local.start()
  await closed
  await upstream.close()
}
