/**
 * The forge meter's Prometheus side: forge_requests_total (every attempt), forge_not_modified_total
 * (the 304s among them: free), forge_points_total (attempts that spent a point of the installation's
 * REST budget) and the rate-limit gauges. A registry shared by two forges (tests, embedders) keeps one
 * set of metrics instead of throwing on the second registration.
 */
import { Counter, Gauge, type Registry } from 'prom-client'

/** The forge's metrics in one registry. */
export type ForgeMetrics = ReturnType<typeof registerForgeMetrics>

/** Registers (or finds) the forge metrics in `registry`. */
export function registerForgeMetrics(registry: Registry) {
  const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    existing<Counter<L>>(name) ?? new Counter({ name, help, labelNames, registers: [registry] })
  const gauge = (name: string, help: string) =>
    existing<Gauge<'host' | 'resource' | 'installation'>>(name) ??
    new Gauge({
      name,
      help,
      labelNames: ['host', 'resource', 'installation'] as const,
      registers: [registry],
    })
  return {
    requests: counter(
      'forge_requests_total',
      'Forge HTTP attempts sent by the transport, by host, API, lane and status class',
      ['host', 'api', 'lane', 'status'] as const,
    ),
    notModified: counter(
      'forge_not_modified_total',
      'Forge GETs answered 304 Not Modified (free against the rate limit), by host, API and lane',
      ['host', 'api', 'lane'] as const,
    ),
    points: counter(
      'forge_points_total',
      "Forge attempts that spent a point of the installation's primary REST rate limit, by host and lane",
      ['host', 'lane'] as const,
    ),
    limit: gauge(
      'forge_ratelimit_limit',
      'Last x-ratelimit-limit seen, per host, resource and installation (absent: the App’s own requests)',
    ),
    remaining: gauge(
      'forge_ratelimit_remaining',
      'Last x-ratelimit-remaining seen, per host, resource and installation (absent: the App’s own requests)',
    ),
    reset: gauge(
      'forge_ratelimit_reset_seconds',
      'Last x-ratelimit-reset seen (epoch seconds), per host, resource and installation',
    ),
  }
}
