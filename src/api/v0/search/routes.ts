// GET /workspaces/{workspace_id}/search?q=...: full-text search of the workspace's documents
// (their text by block and their titles) and database assets (title, table names), only what the
// caller may view (docs/search.md). Beyond the interface, like the directory endpoints.
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { SearchOut, SearchParams, SearchQueryParams } from '@tandem/api/v0/search'

export function searchRoutes({ deps }: ApiContext): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workspaces/:workspace_id/search',
      operationId: 'search_workspace',
      summary: "Search the text and titles of the workspace's documents the caller may view",
      tags: ['workspaces'],
      params: SearchParams,
      query: SearchQueryParams,
      response: SearchOut,
      errors: {
        400: 'q is empty or longer than 500 characters',
        403: 'caller is not a member of the workspace',
        404: 'workspace not found',
      },
      handler: (_ctx, { params, query, user }) =>
        deps.search.query({
          user,
          workspaceId: params.workspace_id,
          q: query.q,
          limit: query.limit,
          offset: query.offset,
        }),
    }),
  ]
}
