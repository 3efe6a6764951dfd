// Shapes of the collaboration-token endpoint (spec 2.4, 4.6).
import { z } from 'zod'
import { ATTRIBUTION_KEY, MAX_ATTRIBUTION_KEYS, MAX_ATTRIBUTION_VALUE_CHARS } from '../../../auth/attributions.js'
import { Id } from '../../ids.js'
import type { PydanticError } from '../../validation/pydantic.js'

export const AssetParams = z.object({ asset_id: Id })

export const CollabTokenRequest = z
  .object({
    access: z.enum(['view', 'edit']).default('view').describe('a ceiling, not a grant'),
    attributions: z
      .record(z.string().regex(ATTRIBUTION_KEY), z.string().max(MAX_ATTRIBUTION_VALUE_CHARS))
      .meta({ maxProperties: MAX_ATTRIBUTION_KEYS })
      .optional()
      .describe(`custom attributions the token carries, stored with every update it sends: at most ${MAX_ATTRIBUTION_KEYS} keys [a-z0-9_]{1,32}, string values`),
  })
  .meta({ id: 'CollabTokenRequest' })

/**
 * What the generic checker leaves to this endpoint: the key pattern and the key count, reported
 * as pydantic reports a `dict[constr(pattern), constr(max_length)]` with `max_length` on the dict.
 */
export function attributionErrors(attributions: Record<string, string> | undefined): PydanticError[] {
  if (!attributions) return []
  const loc = ['body', 'attributions']
  const errors: PydanticError[] = []
  const pattern = ATTRIBUTION_KEY.source
  for (const key of Object.keys(attributions)) {
    if (!ATTRIBUTION_KEY.test(key)) {
      errors.push({ type: 'string_pattern_mismatch', loc: [...loc, key, '[key]'], msg: `String should match pattern '${pattern}'`, input: key, ctx: { pattern } })
    }
  }
  const n = Object.keys(attributions).length
  if (n > MAX_ATTRIBUTION_KEYS) {
    errors.push({
      type: 'too_long',
      loc,
      msg: `Dictionary should have at most ${MAX_ATTRIBUTION_KEYS} items after validation, not ${n}`,
      input: attributions,
      ctx: { field_type: 'Dictionary', max_length: MAX_ATTRIBUTION_KEYS, actual_length: n },
    })
  }
  return errors
}

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
