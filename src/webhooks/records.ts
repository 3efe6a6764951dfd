// Webhook registrations: control-plane records `webhook/{workspace}/{id}`. The secret is kept (it
// signs every delivery), returned once by create, never listed, never logged.
import { checkId, newId } from '../control/ids.js'
import type { ControlStore } from '../control/store.js'
import { key } from '../control/store.js'
import { AppError } from '../infra/errors.js'
import type { EventType } from '@tandem/api/webhook-events'
import { newSecret } from './signing.js'

const MAX_WEBHOOKS_PER_WORKSPACE = 20

export interface WebhookRecord {
  id: string
  workspaceId: string
  url: string
  events: EventType[]
  description: string | null
  secret: string
  createdAtMs: number
}

export type PublicWebhook = Omit<WebhookRecord, 'secret'>

export const WEBHOOK_KIND = 'webhook'
const webhookKey = (ws: string, id: string) => key(WEBHOOK_KIND, ws, id)

export const publicWebhook = ({ secret: _secret, ...rest }: WebhookRecord): PublicWebhook => rest

export async function createWebhook(
  store: ControlStore,
  w: { workspaceId: string; url: string; events: EventType[]; description?: string | null | undefined },
  nowMs: number,
): Promise<WebhookRecord> {
  checkId(w.workspaceId, 'workspace id')
  return store.serial(key(WEBHOOK_KIND, w.workspaceId), async () => {
    if ((await listWebhooks(store, w.workspaceId)).length >= MAX_WEBHOOKS_PER_WORKSPACE) {
      throw new AppError('bad_request', `a workspace has at most ${MAX_WEBHOOKS_PER_WORKSPACE} webhooks`)
    }
    const record: WebhookRecord = {
      id: newId('wh'),
      workspaceId: w.workspaceId,
      url: w.url,
      events: [...new Set(w.events)],
      description: w.description ?? null,
      secret: newSecret(),
      createdAtMs: nowMs,
    }
    await store.batch([{ type: 'put', key: webhookKey(w.workspaceId, record.id), value: record }])
    return record
  })
}

export async function listWebhooks(store: ControlStore, workspaceId: string): Promise<WebhookRecord[]> {
  return (await store.list<WebhookRecord>(key(WEBHOOK_KIND, workspaceId))).map((r) => r.value)
}

/** Every registration of every workspace (the dispatcher's view of who listens). */
export async function allWebhooks(store: ControlStore): Promise<WebhookRecord[]> {
  return (await store.list<WebhookRecord>(WEBHOOK_KIND)).map((r) => r.value)
}

export async function getWebhook(
  store: ControlStore,
  workspaceId: string,
  id: string,
): Promise<WebhookRecord | undefined> {
  return store.get<WebhookRecord>(webhookKey(workspaceId, id))
}

/** Deletes the registration; its pending deliveries are dropped by the dispatcher when it meets them. */
export async function deleteWebhook(store: ControlStore, workspaceId: string, id: string): Promise<void> {
  if (!(await getWebhook(store, workspaceId, id))) throw new AppError('not_found', 'Webhook not found')
  await store.batch([{ type: 'del', key: webhookKey(workspaceId, id) }])
}
