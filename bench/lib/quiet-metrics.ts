// Metric classes that keep every name and help text and record nothing: the `nometrics` ablation
// (bench/ablate.ts) builds the server's metrics from them, so it measures what recording costs
// per update with no check left on the recording path.
import type { CounterConfiguration, HistogramConfiguration } from 'prom-client'
import Counter from 'prom-client/lib/counter.js'
import Gauge from 'prom-client/lib/gauge.js'
import Histogram from 'prom-client/lib/histogram.js'
import type { MetricKinds } from '../../src/infra/metrics.js'

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

export const QUIET_KINDS: MetricKinds = { Counter: QuietCounter, Gauge: QuietGauge, Histogram: QuietHistogram }
