// GET/PATCH /workspaces/{workspace_id}/tool-registry: owners and admins of the workspace only.
import { getRegistry, updateRegistry } from '../../../control/tool-registry.js'
import { requireWorkspaceAdmin } from '../../../control/workspaces.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import {
  UpdateWorkspaceToolRegistryRequestIn,
  WorkspaceParams,
  WorkspaceToolRegistryOut,
} from '@tandem/api/v0/tool-registry'

const ERRORS = {
  400: 'the persisted or requested policy is invalid',
  403: 'caller is not a workspace owner or admin',
  404: 'workspace not found',
}

export function toolRegistryRoutes({ control }: ApiContext): RouteDef[] {
  const { store, catalog } = control
  return [
    defineRoute({
      method: 'get',
      path: '/workspaces/:workspace_id/tool-registry',
      operationId: 'get_workspace_tool_registry',
      summary: 'Get tool registry',
      tags: ['workspaces'],
      params: WorkspaceParams,
      response: WorkspaceToolRegistryOut,
      errors: ERRORS,
      async handler(_ctx, { params, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        return getRegistry(store, catalog, params.workspace_id)
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/workspaces/:workspace_id/tool-registry',
      operationId: 'update_workspace_tool_registry',
      summary: 'Update tool registry',
      tags: ['workspaces'],
      params: WorkspaceParams,
      body: UpdateWorkspaceToolRegistryRequestIn,
      bodyOptional: true,
      response: WorkspaceToolRegistryOut,
      errors: ERRORS,
      async handler(_ctx, { params, body, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        return updateRegistry(store, catalog, params.workspace_id, body)
      },
    }),
  ]
}
