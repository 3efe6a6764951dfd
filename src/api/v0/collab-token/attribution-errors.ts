// The attribution checks of the collab-token request that zod's record schema leaves open, reported
// the way pydantic reports them.
import { ATTRIBUTION_KEY, MAX_ATTRIBUTION_KEYS } from '@tandem/api/attributions'
import type { PydanticError } from '../../validation/pydantic.js'

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
      errors.push({
        type: 'string_pattern_mismatch',
        loc: [...loc, key, '[key]'],
        msg: `String should match pattern '${pattern}'`,
        input: key,
        ctx: { pattern },
      })
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
