// Shapes of the collaboration-token endpoint (spec 2.4, 4.6).
import { z } from 'zod'
import { ATTRIBUTION_KEY, MAX_ATTRIBUTION_KEYS, MAX_ATTRIBUTION_VALUE_CHARS } from '../attributions.js'
import { Id } from '../ids.js'

export const AssetParams = z.object({ asset_id: Id })

export const CollabTokenRequest = z
  .object({
    access: z.enum(['view', 'edit']).default('view').describe('a ceiling, not a grant'),
    attributions: z
      .record(z.string().regex(ATTRIBUTION_KEY), z.string().max(MAX_ATTRIBUTION_VALUE_CHARS))
      .meta({ maxProperties: MAX_ATTRIBUTION_KEYS })
      .optional()
      .describe(
        `custom attributions the token carries, stored with every update it sends: at most ${MAX_ATTRIBUTION_KEYS} keys [a-z0-9_]{1,32}, string values`,
      ),
  })
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
