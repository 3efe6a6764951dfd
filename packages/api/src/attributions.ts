// Custom attributions (`{"source": "ai", "model": "m1"}`): what a token or a request says about
// who (or what) is behind an edit, stored beside the user of every update it sends. One shape
// everywhere: at most 8 keys `[a-z0-9_]{1,32}`, each a string of at most 128 characters (the
// server checks them: src/auth/attributions.ts).

export type Attributes = Readonly<Record<string, string>>

export const MAX_ATTRIBUTION_KEYS = 8
export const MAX_ATTRIBUTION_VALUE_CHARS = 128
export const ATTRIBUTION_KEY = /^[a-z0-9_]{1,32}$/
