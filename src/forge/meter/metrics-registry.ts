/**
 * A Prometheus registry as leasecron's public types name it: the prom-client `Registry` methods leasecron
 * calls, described by our own interface. prom-client is inside leasecron's bundle and is not installed
 * beside it, so the public declarations must not name it; a prom-client `Registry` of your own fits this
 * interface, and the forge registers its metrics in it (prom-client registers through these methods, so
 * your copy and the bundle's need not be the same).
 *
 * Not a metrics library: nothing here creates or counts anything.
 */
export interface MetricsRegistry {
  /** The text exposition of every metric in the registry (what `/metrics` serves). */
  metrics(): Promise<string>
  readonly contentType: string
  /** The metric registered under `name`, if any (a second forge on the same registry reuses it). */
  getSingleMetric(name: string): unknown
  /** Called by a metric registering itself (`registers: [registry]`). */
  registerMetric(metric: never): void
}
