// The console's one client: @tandem/client's TandemClient bound to the session's API key (same
// origin). `said` turns the client's TandemError into the sentence the console shows.
import { TandemClient, TandemError, type Me } from '@tandem/client'

export type { AssetSummary, DeletedAsset, Me } from './api-types.js'

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterSec: number | null = null,
    /** the parsed error body (a 409 carries the current record) */
    readonly body: unknown = null,
  ) {
    super(message)
  }
}

const EXPLAIN: Record<number, string> = {
  401: 'The API key was not accepted',
  403: 'You do not have permission for this',
  404: 'Not found',
  409: 'Conflict',
  422: 'The request was not valid',
  503: 'The service is unavailable right now',
}

function sentence(e: TandemError): ApiError {
  if (e.status === 0)
    return new ApiError(
      `Cannot reach the server (${location.host}). Check that Tandem is running and the network is up.`,
      0,
    )
  const detail =
    typeof e.detail === 'string'
      ? e.detail
      : e.detail
        ? e.detail.map((x) => `${x.loc.join('.')}: ${x.msg}`).join('; ')
        : null
  const lead = EXPLAIN[e.status] ?? `The server answered ${e.status}`
  const tail = detail ? `: ${detail}${/[.!?]$/.test(detail) ? '' : '.'}` : '.'
  return new ApiError(`${lead} (${e.status})${tail}`, e.status, e.retryAfterSec, e.body)
}

/** Awaits a client call; a refusal becomes an ApiError with the console's sentence. */
export async function said<T>(call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (e) {
    throw e instanceof TandemError ? sentence(e) : e
  }
}

export const apiClient = (key: string) => new TandemClient({ baseUrl: location.origin, apiKey: key })
export type Api = TandemClient

/** Owners and admins administer a workspace: collab tokens, deleting and restoring its assets. */
export const administers = (me: Me, workspaceId: string) =>
  me.workspaces.some((w) => w.id === workspaceId && (w.role === 'owner' || w.role === 'admin'))
