/**
 * Figures the status snapshot reads back from the worker's Prometheus registry: the forge's rate-limit
 * gauges (set by the meter from `x-ratelimit-*` headers) and the scheduler's skipped-tick counter. Reading
 * them here keeps one source of truth: the page shows what /metrics shows.
 */
import type { Registry } from 'prom-client'
import type { RateLimitStatus } from './status-snapshot.js'

type Values = { labels: Record<string, string | number | undefined>; value: number }[]

async function values(registry: Registry, name: string): Promise<Values> {
  const metric = registry.getSingleMetric(name)
  if (!metric) return []
  return (await metric.get()).values
}

/** The last rate-limit figures per host, resource and installation, ordered by the three. */
export async function rateLimitsFromRegistry(registry: Registry): Promise<RateLimitStatus[]> {
  const [limits, remaining, resets] = await Promise.all([
    values(registry, 'forge_ratelimit_limit'),
    values(registry, 'forge_ratelimit_remaining'),
    values(registry, 'forge_ratelimit_reset_seconds'),
  ])
  const key = (v: Values[number]) => `${v.labels.host} ${v.labels.resource} ${v.labels.installation ?? ''}`
  return limits
    .map((l) => {
      const left = remaining.find((r) => key(r) === key(l))
      const reset = resets.find((r) => key(r) === key(l))
      return {
        host: String(l.labels.host),
        resource: String(l.labels.resource),
        installation: l.labels.installation === undefined ? null : Number(l.labels.installation),
        limit: l.value,
        remaining: left?.value ?? 0,
        resetAt: reset ? new Date(reset.value * 1000).toISOString() : null,
      }
    })
    .sort(
      (a, b) =>
        a.host.localeCompare(b.host) ||
        a.resource.localeCompare(b.resource) ||
        (a.installation ?? 0) - (b.installation ?? 0),
    )
}

/** `leasecron_skipped_ticks_total` per net, then per reason. */
export async function skippedTicksFromRegistry(
  registry: Registry,
): Promise<Map<string, Record<string, number>>> {
  const byNet = new Map<string, Record<string, number>>()
  for (const v of await values(registry, 'leasecron_skipped_ticks_total')) {
    const net = String(v.labels.net)
    const reasons = byNet.get(net) ?? {}
    reasons[String(v.labels.reason)] = v.value
    byNet.set(net, reasons)
  }
  return byNet
}
