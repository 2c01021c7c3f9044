/**
 * From the public MetricsRegistry (metrics-registry.ts) back to prom-client's own Registry type, for the
 * code inside leasecron that registers or reads metrics. Kept apart from metrics-registry.ts so that the
 * public declarations name no prom-client type.
 */
import type { Registry } from 'prom-client'
import type { MetricsRegistry } from './metrics-registry.js'

/**
 * The registry as prom-client's own type. Every MetricsRegistry leasecron receives is a prom-client
 * Registry (ours, or the user’s own copy), and prom-client’s metrics call on it only the methods
 * MetricsRegistry names.
 */
export function asPromRegistry(registry: MetricsRegistry): Registry {
  return registry as Registry
}
