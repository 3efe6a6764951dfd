// Identifiers in paths and queries. The spec leaves their format open; every id this server issues
// is at most 200 characters (they double as collab room names), so longer input is a 422, not a lookup.
import { z } from 'zod'

const MAX_ID_CHARS = 200

export const Id = z.string().max(MAX_ID_CHARS)
