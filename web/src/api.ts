// Calls to /api/v0 (same origin) with the session's API key, and errors turned into sentences.
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

/** The error body's own words: `detail` (a string or a 422 list) or `message`. */
function detailOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null
  const b = body as { detail?: unknown; message?: unknown; error?: unknown }
  if (typeof b.detail === 'string') return b.detail
  if (Array.isArray(b.detail)) {
    return b.detail.map((e: { loc?: unknown[]; msg?: string }) => `${(e.loc ?? []).join('.')}: ${e.msg ?? 'invalid'}`).join('; ')
  }
  if (typeof b.message === 'string') return b.message
  if (typeof b.error === 'string') return b.error
  return null
}

const EXPLAIN: Record<number, string> = {
  401: 'The API key was not accepted',
  403: 'You do not have permission for this',
  404: 'Not found',
  409: 'Conflict',
  422: 'The request was not valid',
  503: 'The service is unavailable right now',
}

export async function request<T>(url: string, init: RequestInit & { key?: string; json?: unknown } = {}): Promise<T> {
  const headers = new Headers(init.headers)
  headers.set('accept', 'application/json')
  if (init.key) headers.set('x-api-key', init.key)
  let body = init.body
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(init.json)
  }
  let res: Response
  try {
    res = await fetch(url, { ...init, headers, body: body ?? null })
  } catch {
    throw new ApiError(`Cannot reach the server (${new URL(url, location.href).host}). Check that Tandem is running and the network is up.`, 0)
  }
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    // not JSON: the status speaks for itself
  }
  if (!res.ok) {
    const retry = res.headers.get('retry-after')
    const detail = detailOf(parsed)
    const lead = EXPLAIN[res.status] ?? `The server answered ${res.status}`
    const sentence = detail ? `: ${detail}${/[.!?]$/.test(detail) ? '' : '.'}` : '.'
    throw new ApiError(`${lead} (${res.status})${sentence}`, res.status, retry !== null && /^\d+$/.test(retry) ? Number(retry) : null, parsed)
  }
  return parsed as T
}

/** A client bound to one API key. */
export function apiClient(key: string) {
  return {
    get: <T>(path: string) => request<T>(`/api/v0${path}`, { key }),
    post: <T>(path: string, json: unknown) => request<T>(`/api/v0${path}`, { key, method: 'POST', json }),
    del: <T>(path: string) => request<T>(`/api/v0${path}`, { key, method: 'DELETE' }),
  }
}
export type Api = ReturnType<typeof apiClient>

export interface Me {
  user_id: string
  workspaces: { id: string; name: string; role: string }[]
}
/** Owners and admins administer a workspace: collab tokens, deleting and restoring its assets. */
export const administers = (me: Me, workspaceId: string) => me.workspaces.some((w) => w.id === workspaceId && (w.role === 'owner' || w.role === 'admin'))

export interface DeletedAsset {
  id: string
  type: string
  title: string
  deleted_at_ms: number
  deleted_by: string
}
export interface AssetSummary {
  id: string
  type: string
  title: string
  access: 'view' | 'edit'
}
export interface CollabToken {
  token: string
  access_type: 'r' | 'rw'
  doc_id: string
  org: string
  rest_url: string
  ws_url: string
  expires_at_ms: number
  branch?: string
}
