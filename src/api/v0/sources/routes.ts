// GET /me/sources: the caller's connected sources by group, and the live site sweep if any.
import { GROUPS, listSources, listSweeps } from '../../../sources/records.js'
import { provisioningView } from '../../../sources/sweeper.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, type RouteDef } from '../../route.js'
import { SourceReadiness } from '@tandem/api/v0/sources'

export function sourcesRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  return [
    defineRoute({
      method: 'get',
      path: '/me/sources',
      operationId: 'get_source_readiness',
      summary: 'Get source readiness',
      tags: ['me'],
      response: SourceReadiness,
      async handler(_ctx, { user }) {
        const sources = await listSources(store, user)
        const groupCounts = Object.fromEntries(GROUPS.map((g) => [g, sources.filter((s) => s.group === g).length]))
        return {
          groupCounts,
          totalSources: sources.length,
          siteProvisioning: provisioningView(
            await listSweeps(store, user),
            deps.now(),
            deps.config.siteProvisioningWindowSec * 1000,
          ),
        }
      },
    }),
  ]
}
