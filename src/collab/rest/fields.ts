// Fields several collab REST routes take, as zod schemas with the messages callers have always
// seen: base64 bytes, true/false query flags, non-negative integers, custom attributions.
import {
  ATTRIBUTION_KEY,
  MAX_ATTRIBUTION_KEYS,
  MAX_ATTRIBUTION_VALUE_CHARS,
  type Attributes,
} from '@tandem/api/attributions'
import { z } from 'zod'
import { attributionProblem, normalizeAttributions } from '../../auth/attributions.js'
import { unprocessable } from './route-input.js'

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

/** Base64 (standard or URL-safe) text decoded to bytes; `typeError` when it is not a string. */
export const base64Bytes = (what: string, typeError: string) =>
  z
    .string({ error: typeError })
    .regex(BASE64, { error: `${what} is not base64` })
    .transform((v) => new Uint8Array(Buffer.from(v, v.includes('-') || v.includes('_') ? 'base64url' : 'base64')))
    .meta({ description: `${what}, base64`, contentEncoding: 'base64' })

/** A query flag: true/false (or 1/0), any case. */
export const flag = (name: string) =>
  z
    .string()
    .regex(/^(true|false|1|0)$/i, { error: (iss) => `${name} must be true or false, got ${JSON.stringify(iss.input)}` })
    .transform((v) => /^(true|1)$/i.test(v))

/** A non-negative integer query parameter in ms (at most 16 digits). */
export const msParam = (name: string) =>
  z
    .string()
    .refine((raw) => /^\d{1,16}$/.test(raw) && Number.isSafeInteger(Number(raw)), {
      error: (iss) => `${name} must be a non-negative integer (ms), got ${JSON.stringify(iss.input)}`,
    })
    .transform(Number)

/** Custom attributions of a body (`{"source": "ai"}`): 422 past their limits, normalised. */
export const attributions = z
  .unknown()
  .superRefine(unprocessable(attributionProblem))
  .transform((v) => normalizeAttributions(v as Record<string, string>) as Attributes | undefined)
  .meta({
    description: `custom attributions: at most ${MAX_ATTRIBUTION_KEYS} keys ${ATTRIBUTION_KEY.source}, string values of at most ${MAX_ATTRIBUTION_VALUE_CHARS} characters`,
  })
