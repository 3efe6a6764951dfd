// The classes a server's metrics are built from: prom-client's own, or, for the bench only
// (--bench-ablate nometrics), subclasses that keep every name and help text but record nothing,
// so bench/ablate.ts can measure what recording costs per update. Choosing them once, when the
// metrics are built, leaves no check on the recording path.
import type { CounterConfiguration, HistogramConfiguration } from 'prom-client'
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'

const ignore = (): void => {}

// Counter and Histogram pick `inc` and `observe` in their constructors (own properties, by
// whether exemplars are on), so an override on the prototype would never be called.
class QuietCounter<T extends string = string> extends Counter<T> {
  constructor(configuration: CounterConfiguration<T>) {
    super(configuration)
    this.inc = ignore
  }
}

class QuietHistogram<T extends string = string> extends Histogram<T> {
  constructor(configuration: HistogramConfiguration<T>) {
    super(configuration)
    this.observe = ignore
  }
}

// Gauge's timers and setToCurrentTime end in `set`.
class QuietGauge<T extends string = string> extends Gauge<T> {
  override inc(): void {}
  override dec(): void {}
  override set(): void {}
}

interface MetricKinds {
  Counter: typeof Counter
  Gauge: typeof Gauge
  Histogram: typeof Histogram
}

/** `record: false` (bench only): metrics that keep their shape and record nothing. */
export function metricKinds(record: boolean): MetricKinds {
  return record ? { Counter, Gauge, Histogram } : { Counter: QuietCounter, Gauge: QuietGauge, Histogram: QuietHistogram }
}
