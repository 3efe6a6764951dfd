// A workspace's tool registry: default visibility plus explicit per-tool overrides. Updates are
// read-modify-write under a per-workspace lock, so concurrent PATCHes never lose one another.
import { AppError } from '../infra/errors.js'
import { key, type ControlStore } from './store.js'
import type { ToolCatalog } from './tool-catalog.js'
import { APPROVAL_MODES, VISIBILITIES, type ApprovalMode, type Visibility } from '@tandem/api/tool-policy'

interface ToolOverride {
  enabled: boolean
  approval_mode: ApprovalMode
}

interface StoredRegistry {
  default_visibility: Visibility
  tools: Record<string, ToolOverride>
}

export interface RegistryView {
  workspace_id: string
  default_visibility: Visibility
  tools: ({ tool_id: string } & ToolOverride)[]
}

export interface RegistryUpdate {
  default_visibility?: Visibility | null
  tool?: { tool_id: string; enabled?: boolean | null; approval_mode?: ApprovalMode | null } | null
}

/** Control-store prefix of the registries (a write under it may change an approval mode). */
export const REGISTRY_PREFIX = 'toolreg'
const registryKey = (ws: string) => key(REGISTRY_PREFIX, ws)
const EMPTY: StoredRegistry = { default_visibility: 'visible', tools: {} }

/** Why a stored or requested policy breaks the catalog's rules, or null when it is valid. */
function policyProblem(reg: StoredRegistry, catalog: ToolCatalog): string | null {
  if (!(VISIBILITIES as readonly string[]).includes(reg.default_visibility))
    return `invalid default_visibility ${JSON.stringify(reg.default_visibility)}`
  for (const [id, o] of Object.entries(reg.tools)) {
    if (!catalog.tools.has(id)) return `unknown tool ${JSON.stringify(id)}`
    if (typeof o?.enabled !== 'boolean' || !(APPROVAL_MODES as readonly string[]).includes(o.approval_mode))
      return `invalid override for tool ${JSON.stringify(id)}`
    if (catalog.tools.get(id) && !o.enabled) return `base tool ${JSON.stringify(id)} cannot be disabled`
  }
  return null
}

function view(workspaceId: string, reg: StoredRegistry): RegistryView {
  const ids = Object.keys(reg.tools).sort()
  return {
    workspace_id: workspaceId,
    default_visibility: reg.default_visibility,
    tools: ids.map((tool_id) => ({ tool_id, ...reg.tools[tool_id]! })),
  }
}

/** Tool ids renamed since registries were stored: an override of the old id is the new one's. */
const RENAMED: Readonly<Record<string, string>> = { list_documents: 'search_documents' } // issue 50 folded it in

async function load(store: ControlStore, workspaceId: string): Promise<StoredRegistry> {
  const reg = (await store.get<StoredRegistry>(registryKey(workspaceId))) ?? EMPTY
  if (!Object.keys(reg.tools).some((id) => id in RENAMED)) return reg
  // an override stored under the new id wins over one under the old
  const tools = Object.fromEntries(Object.entries(reg.tools).filter(([id]) => !(id in RENAMED)))
  for (const [id, o] of Object.entries(reg.tools)) if (id in RENAMED) tools[RENAMED[id]!] ??= o
  return { ...reg, tools }
}

export async function getRegistry(
  store: ControlStore,
  catalog: ToolCatalog,
  workspaceId: string,
): Promise<RegistryView> {
  const reg = await load(store, workspaceId)
  const problem = policyProblem(reg, catalog)
  if (problem) throw new AppError('bad_request', `the persisted tool registry configuration is invalid: ${problem}`)
  return view(workspaceId, reg)
}

/** Applies the fields that are present and not null; the rest of the stored policy stays as it is. */
export async function updateRegistry(
  store: ControlStore,
  catalog: ToolCatalog,
  workspaceId: string,
  upd: RegistryUpdate,
): Promise<RegistryView> {
  return store.serial(registryKey(workspaceId), async () => {
    const current = await load(store, workspaceId)
    const next: StoredRegistry = {
      default_visibility: upd.default_visibility ?? current.default_visibility,
      tools: { ...current.tools },
    }
    if (upd.tool) {
      const { tool_id } = upd.tool
      if (!catalog.tools.has(tool_id)) throw new AppError('bad_request', `unknown tool ${JSON.stringify(tool_id)}`)
      const before = next.tools[tool_id] ?? { enabled: true, approval_mode: 'no_approval' }
      const after: ToolOverride = {
        enabled: upd.tool.enabled ?? before.enabled,
        approval_mode: upd.tool.approval_mode ?? before.approval_mode,
      }
      if (catalog.tools.get(tool_id) && !after.enabled)
        throw new AppError('bad_request', `base tool ${JSON.stringify(tool_id)} cannot be disabled`)
      next.tools[tool_id] = after
    }
    // Only the change requested is checked here: an override made invalid by a catalog change is
    // reported by GET (400) and repaired by a PATCH of that tool.
    if (JSON.stringify(next) !== JSON.stringify(current))
      await store.batch([{ type: 'put', key: registryKey(workspaceId), value: next }])
    return view(workspaceId, next)
  })
}

/** The approval mode a workspace's registry sets for one tool (no override: no_approval). */
export async function approvalOf(
  store: ControlStore,
  catalog: ToolCatalog,
  workspaceId: string,
  toolId: string,
): Promise<ApprovalMode> {
  return (
    (await getRegistry(store, catalog, workspaceId)).tools.find((t) => t.tool_id === toolId)?.approval_mode ??
    'no_approval'
  )
}
