// /workspaces/{workspace_id}/webhooks: register, list, delete, and the latest deliveries (src/webhooks). Owners and
// admins of the workspace only. The secret is in the 201 answer and nowhere else.
import { iso } from '../../../control/ids.js'
import { requireWorkspaceAdmin } from '../../../control/workspaces.js'
import type { ApiContext } from '../../context.js'
import { defineRoute, ValidationFailed, type RouteDef } from '../../route.js'
import { AppError } from '../../../infra/errors.js'
import { Outbox, type Delivery } from '../../../webhooks/outbox.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  publicWebhook,
  type WebhookRecord,
} from '../../../webhooks/records.js'
import {
  CreatedWebhookOut,
  CreateWebhookRequest,
  DeliveryListOut,
  NoContent,
  WebhookListOut,
  WebhookParams,
  WebhooksParams,
} from '@tandem/api/v0/webhooks'
import { urlProblem } from '../../../webhooks/url-guard.js'

const LATEST_DELIVERIES = 100

const ERRORS = {
  400: 'too many webhooks in the workspace',
  403: 'caller is not a workspace owner or admin',
  404: 'workspace (or webhook) not found',
}

const webhookOut = (w: WebhookRecord) => {
  const p = publicWebhook(w)
  return { id: p.id, url: p.url, events: p.events, description: p.description, created_at: iso(p.createdAtMs)! }
}

const deliveryOut = (d: Delivery) => ({
  event_id: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  last_status_code: d.lastStatusCode,
  next_at: iso(d.nextAt),
})

/** 422 for a URL that may not be a webhook (scheme, private address), shaped like pydantic's value_error. */
async function checkUrl(url: string, allowPrivate: boolean): Promise<void> {
  const problem = await urlProblem(url, allowPrivate)
  if (problem)
    throw new ValidationFailed([
      {
        type: 'value_error',
        loc: ['body', 'url'],
        msg: `Value error, ${problem}`,
        input: url,
        ctx: { error: problem },
      },
    ])
}

export function webhookRoutes({ deps, control }: ApiContext): RouteDef[] {
  const { store } = control
  const outbox = new Outbox(store)
  return [
    defineRoute({
      method: 'post',
      path: '/workspaces/:workspace_id/webhooks',
      operationId: 'create_workspace_webhook',
      summary: 'Register a webhook',
      tags: ['webhooks'],
      params: WebhooksParams,
      body: CreateWebhookRequest,
      response: CreatedWebhookOut,
      successStatus: 201,
      errors: ERRORS,
      async handler(ctx, { params, body, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        await checkUrl(body.url, deps.config.webhookAllowPrivate)
        const w = await createWebhook(
          store,
          { workspaceId: params.workspace_id, url: body.url, events: body.events, description: body.description },
          deps.now(),
        )
        ctx.status = 201
        return { ...webhookOut(w), secret: w.secret }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workspaces/:workspace_id/webhooks',
      operationId: 'list_workspace_webhooks',
      summary: 'List webhooks',
      tags: ['webhooks'],
      params: WebhooksParams,
      response: WebhookListOut,
      errors: ERRORS,
      async handler(_ctx, { params, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        return { webhooks: (await listWebhooks(store, params.workspace_id)).map(webhookOut) }
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/workspaces/:workspace_id/webhooks/:webhook_id',
      operationId: 'delete_workspace_webhook',
      summary: 'Delete a webhook (its pending deliveries are dropped)',
      tags: ['webhooks'],
      params: WebhookParams,
      response: NoContent,
      successStatus: 204,
      errors: ERRORS,
      async handler(ctx, { params, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        await deleteWebhook(store, params.workspace_id, params.webhook_id)
        ctx.status = 204
        return undefined
      },
    }),
    defineRoute({
      method: 'get',
      path: '/workspaces/:workspace_id/webhooks/:webhook_id/deliveries',
      operationId: 'list_webhook_deliveries',
      summary: 'Latest deliveries of a webhook, newest first',
      tags: ['webhooks'],
      params: WebhookParams,
      response: DeliveryListOut,
      errors: ERRORS,
      async handler(_ctx, { params, user }) {
        await requireWorkspaceAdmin(store, params.workspace_id, user)
        if (!(await getWebhook(store, params.workspace_id, params.webhook_id)))
          throw new AppError('not_found', 'Webhook not found')
        return { deliveries: (await outbox.latest(params.webhook_id, LATEST_DELIVERIES)).map(deliveryOut) }
      },
    }),
  ]
}
