// Shapes of the source-readiness endpoint (spec 2.6, 4.8).
import { z } from 'zod'

const SiteProvisioning = z
  .object({ provisionedSites: z.int(), totalSites: z.int(), status: z.enum(['in_progress', 'complete']) })
  .meta({ id: 'SiteProvisioning' })

export const SourceReadiness = z
  .object({
    groupCounts: z.record(z.string(), z.int()).describe('mail, files, sites, chats'),
    totalSources: z.int(),
    siteProvisioning: SiteProvisioning.nullable().optional(),
  })
  .meta({ id: 'SourceReadiness' })
