/**
 * The worker's Prometheus metrics (prom-client), in one registry that the forge's counters join, served
 * at /metrics. Lease metrics are derived from lease.run's term events, so they say what the campaign did,
 * not what the scheduler hoped. The ledger's figures per net (last success, last slot, slots by outcome, the
 * net's state) join the same registry from ledger-metrics.ts, read at scrape time on every replica.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { MetricsRegistry } from '../forge/meter/metrics-registry.js'

// The metrics' types are our own views of prom-client's Counter, Gauge and Histogram (the methods the
// worker calls): `Worker.metrics` is public, and prom-client is inside the bundle, not installed beside it.

/** Label values of one series (prom-client's LabelValues). */
export type MetricLabels<L extends string> = Partial<Record<L, string | number>>

/** A prom-client Counter as the worker uses it. */
export interface CounterMetric<L extends string> {
  inc(labels: MetricLabels<L>, value?: number): void
}

/** A prom-client Gauge as the worker uses it. */
export interface GaugeMetric<L extends string = never> {
  set(value: number): void
  set(labels: MetricLabels<L>, value: number): void
}

/** A prom-client Histogram as the worker uses it: a timer that observes seconds when called. */
export interface HistogramMetric<L extends string> {
  startTimer(labels?: MetricLabels<L>): (labels?: MetricLabels<L>) => number
}

export interface WorkerMetrics {
  /** The registry `/metrics` serves (a prom-client Registry); the forge's metrics join it. */
  registry: MetricsRegistry
  leaseHeld: GaugeMetric<'lease' | 'owner'>
  termsStarted: CounterMetric<'lease'>
  stepDowns: CounterMetric<'lease' | 'reason'>
  passDuration: HistogramMetric<'net'>
  passErrors: CounterMetric<'net'>
  /** Each attempt of a pass, by its outcome (a slot's retries are attempts under its one claim). */
  passAttempts: CounterMetric<'net' | 'outcome'>
  skippedTicks: CounterMetric<'net' | 'reason'>
  storeUp: GaugeMetric
  /** Campaign attempts that threw unexpectedly (lease.run's `attempt-failed`); the campaign went on. */
  attemptFailures: CounterMetric<'lease'>
  /** Distinct malformed documents the store twins read (once per document and problem), by collection. */
  storeBadDocuments: CounterMetric<'collection'>
  /** Pings to a net's PING_URL that got no 2xx answer in time (ping.ts); the passes were not affected. */
  pingFailures: CounterMetric<'net'>
  /** This replica's wall clock minus the Mongo server's, in seconds (clock-guard.ts); 0 on the memory store. */
  clockOffset: GaugeMetric
  /** Leases this replica may hold by the fair share (⌈leases ÷ live replicas⌉), and the live replicas seen. */
  fairShare: GaugeMetric
  liveReplicas: GaugeMetric
}

/** Creates the registry and the worker's metrics in it. */
export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry()
  const registers = [registry]
  return {
    registry,
    leaseHeld: new Gauge({
      name: 'leasecron_lease_held',
      help: '1 while this process serves a term of the lease',
      labelNames: ['lease', 'owner'],
      registers,
    }),
    termsStarted: new Counter({
      name: 'leasecron_terms_started_total',
      help: 'terms this process was elected to',
      labelNames: ['lease'],
      registers,
    }),
    stepDowns: new Counter({
      name: 'leasecron_step_downs_total',
      help: 'terms that ended other than by a clean stop: lost (a renewal refused) or deadline (no renewal it could prove)',
      labelNames: ['lease', 'reason'],
      registers,
    }),
    passDuration: new Histogram({
      name: 'leasecron_pass_duration_seconds',
      help: 'duration of each pass',
      labelNames: ['net'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers,
    }),
    passAttempts: new Counter({
      name: 'leasecron_pass_attempts_total',
      help: 'attempts of passes, by outcome (ok, failed, timed-out, aborted)',
      labelNames: ['net', 'outcome'],
      registers,
    }),
    passErrors: new Counter({
      name: 'leasecron_pass_errors_total',
      help: 'passes that ended failed or timed-out after their last attempt',
      labelNames: ['net'],
      registers,
    }),
    skippedTicks: new Counter({
      name: 'leasecron_skipped_ticks_total',
      help: 'ticks that started no pass: overlap (the previous pass still running), deadline (the term past its step-down instant), slot-taken (the run ledger says the slot already ran or runs elsewhere), claim-failed (the ledger did not answer the claim), paused or deferred (its installation’s rate-limit budget was down to LEASECRON_FORGE_RESERVE)',
      labelNames: ['net', 'reason'],
      registers,
    }),
    storeUp: new Gauge({
      name: 'leasecron_store_up',
      help: '1 while the lease store answers the readiness probe',
      registers,
    }),
    attemptFailures: new Counter({
      name: 'leasecron_campaign_attempt_failures_total',
      help: 'campaign attempts that threw unexpectedly (logged as attempt-failed); the campaign tried again after its retry pause',
      labelNames: ['lease'],
      registers,
    }),
    storeBadDocuments: new Counter({
      name: 'leasecron_store_bad_documents_total',
      help: 'malformed documents read from the store (each distinct document and problem once per process): shown as corrupt or skipped, never used',
      labelNames: ['collection'],
      registers,
    }),
    pingFailures: new Counter({
      name: 'leasecron_ping_failures_total',
      help: 'pings to a net’s PING_URL that failed (no answer within the ping timeout, a refused connection, or a non-2xx answer); the pass itself was not affected',
      labelNames: ['net'],
      registers,
    }),
    ...replicaGauges(registers),
  }
}

/** The gauges of how this replica stands among the others: its clock offset and its fair share. */
function replicaGauges(
  registers: Registry[],
): Pick<WorkerMetrics, 'clockOffset' | 'fairShare' | 'liveReplicas'> {
  return {
    clockOffset: new Gauge({
      name: 'leasecron_clock_offset_seconds',
      help: 'this replica’s wall clock minus the Mongo server’s, estimated from the server’s hello answers (positive: ahead); beyond a net’s ttl/6 the replica stops campaigning for it',
      registers,
    }),
    fairShare: new Gauge({
      name: 'leasecron_fair_share_leases',
      help: 'leases this replica campaigns up to: ⌈leases ÷ live replicas⌉ or ⌊leases ÷ live replicas⌋ by its rank among them (it steps down from leases beyond that plus the slack)',
      registers,
    }),
    liveReplicas: new Gauge({
      name: 'leasecron_live_replicas',
      help: 'replicas whose announcement in the store has not expired, as this replica last read them',
      registers,
    }),
  }
}
