// Shapes of the webhook endpoints (docs/webhooks.md).
import { z } from 'zod'
import { Id } from '../ids.js'
import { EVENT_TYPES } from '../webhook-events.js'

export const WebhooksParams = z.object({ workspace_id: Id })
export const WebhookParams = z.object({ workspace_id: Id, webhook_id: Id })

export const CreateWebhookRequest = z
  .object({
    url: z.string().max(2048),
    events: z.array(z.enum(EVENT_TYPES)).min(1),
    description: z.string().max(500).nullable().optional(),
  })
  .meta({ id: 'CreateWebhookRequest' })

const WebhookOut = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    description: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookOut' })

export const CreatedWebhookOut = WebhookOut.extend({
  secret: z.string().describe('whsec_...: shown only in this answer'),
}).meta({ id: 'CreatedWebhookOut' })

export const WebhookListOut = z.object({ webhooks: z.array(WebhookOut) }).meta({ id: 'WebhookListOut' })

const DeliveryOut = z
  .object({
    event_id: z.string(),
    type: z.enum(EVENT_TYPES),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int(),
    last_status_code: z.int().nullable(),
    next_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDeliveryOut' })

export const DeliveryListOut = z.object({ deliveries: z.array(DeliveryOut) }).meta({ id: 'WebhookDeliveryListOut' })

export const NoContent = z.null().meta({ id: 'NoContent' })
