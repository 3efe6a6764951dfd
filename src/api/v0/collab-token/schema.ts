// Shapes of the collaboration-token endpoint (spec 2.4, 4.6).
import { z } from 'zod'
import { Id } from '../../ids.js'

export const AssetParams = z.object({ asset_id: Id })

export const CollabTokenRequest = z
  .object({ access: z.enum(['view', 'edit']).default('view').describe('a ceiling, not a grant') })
  .meta({ id: 'CollabTokenRequest' })

export const CollabTokenResponse = z
  .object({
    token: z.string(),
    access_type: z.enum(['r', 'rw']),
    doc_id: z.string(),
    org: z.string(),
    rest_url: z.string(),
    ws_url: z.string(),
    expires_at_ms: z.int(),
    branch: z.string().default('main'),
  })
  .meta({ id: 'CollabTokenResponse' })
