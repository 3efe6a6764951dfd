// prom-client's own modules, imported one by one (src/infra/metrics.ts): its index also loads the
// Pushgateway (http, https, zlib), the cluster aggregator and the default metrics on every start.
declare module 'prom-client/lib/registry.js' {
  export { Registry as default } from 'prom-client'
}
declare module 'prom-client/lib/counter.js' {
  export { Counter as default } from 'prom-client'
}
declare module 'prom-client/lib/gauge.js' {
  export { Gauge as default } from 'prom-client'
}
declare module 'prom-client/lib/histogram.js' {
  export { Histogram as default } from 'prom-client'
}
declare module 'prom-client/lib/defaultMetrics.js' {
  export { collectDefaultMetrics as default } from 'prom-client'
}
