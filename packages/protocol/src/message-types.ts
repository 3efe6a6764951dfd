// The message type numbers of both wire protocols, once. Hocuspocus numbers the four messages it
// shares with y-websocket (sync, awareness, auth, query-awareness) as y-websocket does, and carries
// their bodies unchanged behind the document's name; the rest are its own.

export const MSG_SYNC = 0
export const MSG_AWARENESS = 1
export const MSG_AUTH = 2
export const MSG_QUERY_AWARENESS = 3
/** Hocuspocus: a sync message answering ours (same body as Sync; must not trigger another step 1) */
export const MSG_SYNC_REPLY = 4
/** Hocuspocus: an application message relayed to the document's other peers */
export const MSG_STATELESS = 5
/** Hocuspocus: the provider leaves the document */
export const MSG_CLOSE = 7
/** Hocuspocus: an update is applied (Tandem: durable) */
export const MSG_SYNC_STATUS = 8
/** Hocuspocus 4.x socket keepalive: one byte, no document name */
export const MSG_PING = 9
export const MSG_PONG = 10

/** y-protocols sync sub-types (both protocols) */
export const SYNC_STEP1 = 0
export const SYNC_STEP2 = 1
export const SYNC_UPDATE = 2

// y-websocket auth sub-types. 0 is y-protocols' "permission denied"; the provider ignores the
// others, which Tandem uses for in-band token refresh.
export const AUTH_DENIED = 0
/** client -> server: varString new token */
export const AUTH_REFRESH = 1
/** server -> client: varString access ('r' | 'rw') */
export const AUTH_GRANTED = 2

// Hocuspocus auth sub-types.
/** client -> server: the token; server -> client (no body): send a fresh one */
export const HOCUS_AUTH_TOKEN = 0
export const HOCUS_AUTH_PERMISSION_DENIED = 1
export const HOCUS_AUTH_AUTHENTICATED = 2
