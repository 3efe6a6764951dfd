// The tool catalog: which tool ids exist and which are base tools (never disabled). Built in, or
// replaced by a JSON file named in configuration: {"tools": [{"tool_id": "...", "base": true}]}.
import { readFile } from 'node:fs/promises'

export interface ToolCatalog {
  /** tool_id -> is a base tool */
  readonly tools: ReadonlyMap<string, boolean>
}

/** The tools Tandem's MCP endpoint serves (src/mcp/): a workspace's registry may disable each. */
export const MCP_TOOLS = [
  'search_documents',
  'read_document',
  'edit_document',
  'suggest_edit',
  'list_suggestions',
  'read_suggestion',
  'withdraw_suggestion',
  'list_databases',
  'read_table',
  'insert_rows',
  'read_comments',
  'comment',
] as const
export type McpTool = (typeof MCP_TOOLS)[number]

const DEFAULT_TOOLS: { tool_id: string; base: boolean }[] = [
  { tool_id: 'asset_content', base: true },
  { tool_id: 'search', base: true },
  { tool_id: 'code_interpreter', base: false },
  { tool_id: 'database_query', base: false },
  { tool_id: 'email_send', base: false },
  { tool_id: 'image_generation', base: false },
  { tool_id: 'web_browse', base: false },
  ...MCP_TOOLS.map((tool_id) => ({ tool_id, base: false })),
]

function catalogFrom(tools: { tool_id: string; base: boolean }[]): ToolCatalog {
  return { tools: new Map(tools.map((t) => [t.tool_id, t.base])) }
}

export async function loadToolCatalog(file: string): Promise<ToolCatalog> {
  if (!file) return catalogFrom(DEFAULT_TOOLS)
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { tools?: unknown }
  const ok =
    Array.isArray(parsed.tools) &&
    parsed.tools.every(
      (t: { tool_id?: unknown; base?: unknown }) =>
        typeof t?.tool_id === 'string' && t.tool_id !== '' && (t.base === undefined || typeof t.base === 'boolean'),
    )
  if (!ok) throw new Error(`${file}: expected {"tools": [{"tool_id": string, "base"?: boolean}]}`)
  return catalogFrom(
    (parsed.tools as { tool_id: string; base?: boolean }[]).map((t) => ({ tool_id: t.tool_id, base: t.base ?? false })),
  )
}
