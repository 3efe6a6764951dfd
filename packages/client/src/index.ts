// @tandem/client: the typed /api/v0 client and live documents with token renewal. Runs in browsers
// and in Node 20 (pass `fetch` and `WebSocketPolyfill` where the globals are missing).
export { TandemClient, type ClientOptions } from './client.js'
export { TandemError, editRefusal, type ErrorDetail } from './error.js'
export { renewDelayMs, type DocumentOptions, type DocumentEvents, type LiveDocument } from './document.js'
export type { DocumentAgent, DocumentRest, RestCall, StreamOptions } from './doc-rest.js'
export type { ColumnFilter, RowsQuery } from './rows-query.js'
export type { FindOptions, OutlineOptions, RangeOptions, SectionOptions } from './part-query.js'
export type { Fetch } from './http.js'
export type * from './types.js'
