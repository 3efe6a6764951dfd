// Webhook metrics, registered on the server's Prometheus registry.
// prom-client's parts one by one, as src/infra/metrics.ts does: its index loads the Pushgateway
// (http, https, zlib) and more, which a plain start must not pay for.
import type { Registry } from 'prom-client'
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'

export function createWebhookMetrics(registry: Registry, depth: () => Promise<number>, registrations: () => number) {
  const registers = [registry]
  return {
    deliveries: new Counter({
      name: 'tandem_webhook_deliveries_total',
      help: 'webhook delivery attempts by outcome: delivered, retry (will be tried again), failed (given up)',
      labelNames: ['status'] as const,
      registers,
    }),
    latency: new Histogram({
      name: 'tandem_webhook_delivery_seconds',
      help: 'time from an event being recorded to its delivery (2xx answer)',
      buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300, 3600],
      registers,
    }),
    registrations: new Gauge({
      name: 'tandem_webhook_registrations',
      help: 'webhook registrations this process knows (re-read when a node announces a change, and every --webhook-refresh-sec)',
      registers,
      collect() {
        this.set(registrations())
      },
    }),
    depth: new Gauge({
      name: 'tandem_webhook_outbox_depth',
      help: 'pending webhook deliveries in the outbox (counted up to 100,000 at each scrape)',
      registers,
      async collect() {
        this.set(await depth().catch(() => 0))
      },
    }),
  }
}

export type WebhookMetrics = ReturnType<typeof createWebhookMetrics>
