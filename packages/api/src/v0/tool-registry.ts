// Shapes of the tool-registry endpoints (spec 2.3, 4.4, 4.5).
import { z } from 'zod'
import { Id } from '../ids.js'
import { APPROVAL_MODES, VISIBILITIES } from '../tool-policy.js'

export const WorkspaceParams = z.object({ workspace_id: Id })

const WorkspaceToolRegistryToolOut = z
  .object({ tool_id: z.string(), enabled: z.boolean(), approval_mode: z.enum(APPROVAL_MODES) })
  .meta({ id: 'WorkspaceToolRegistryToolOut' })

export const WorkspaceToolRegistryOut = z
  .object({
    workspace_id: z.string(),
    default_visibility: z.enum(VISIBILITIES),
    tools: z.array(WorkspaceToolRegistryToolOut),
  })
  .meta({ id: 'WorkspaceToolRegistryOut' })

const UpdateWorkspaceToolRegistryToolIn = z
  .object({
    tool_id: z.string(),
    enabled: z.boolean().nullable().optional(),
    approval_mode: z.enum(APPROVAL_MODES).nullable().optional(),
  })
  .meta({ id: 'UpdateWorkspaceToolRegistryToolIn' })

export const UpdateWorkspaceToolRegistryRequestIn = z
  .object({
    default_visibility: z.enum(VISIBILITIES).nullable().optional(),
    tool: UpdateWorkspaceToolRegistryToolIn.nullable().optional(),
  })
  .meta({ id: 'UpdateWorkspaceToolRegistryRequestIn' })
