/**
 * The worker's clock watch: the clock guard (clock-guard.ts) with its log lines and gauge, fed by the
 * probe (clock-probe.ts) once the store is open. On Mongo it measures against the server; on the memory
 * store there is no other clock, so the offset is 0 and nothing is ever held back.
 *
 * Not the rule (clock-guard.ts) and not the measurement (clock-probe.ts): the wiring between them and the
 * worker's log, metrics and /readyz.
 */
import type { Clock } from '../lease/clock.js'
import { settledOrAborted } from '../lease/wait.js'
import { ClockGuard } from './clock-guard.js'
import { runClockProbe } from './clock-probe.js'
import type { Logger } from '../observe/logger.js'
import type { WorkerMetrics } from '../observe/metrics.js'
import type { ServerClock } from './server-clock.js'

export interface ClockWatch {
  readonly guard: ClockGuard
  /** Resolves once the first offset is known (at once on the memory store); never rejects. */
  readonly measured: Promise<void>
  /** Starts measuring against `mongo` (or records offset 0 without one); resolves when `signal` ends it. */
  start(mongo: ServerClock | undefined, signal: AbortSignal): Promise<void>
  /** /readyz's view: undefined while nothing is held back, else the offset, the leases and why. */
  readiness(): { offsetMs: number; heldBack: string[]; reason: string } | undefined
}

/** The guard of this worker: each flip of a net's verdict is one log line (warn when held back). */
export function createClockWatch(options: {
  enforce: boolean
  log: Logger
  metrics: WorkerMetrics
  clock: Clock
}): ClockWatch {
  const { log, metrics, clock } = options
  let lastReason = ''
  let onMeasured = () => {}
  const measured = new Promise<void>((resolve) => {
    onMeasured = resolve
  })
  const guard = new ClockGuard({
    enforce: options.enforce,
    onChange: ({ lease, verdict }) => {
      const fields = {
        lease,
        offsetMs: Math.round(verdict.offsetMs ?? 0),
        limitMs: Math.round(verdict.limitMs),
      }
      if (verdict.campaign) {
        log.info(fields, 'clock guard: campaigning resumed, the clock offset is back within ttl/6')
        return
      }
      lastReason = verdict.reason
      log.warn(fields, `clock guard: not campaigning for lease ${lease}: ${verdict.reason}`)
    },
  })
  return {
    guard,
    measured,
    async start(mongo, signal) {
      if (!mongo) {
        guard.record({ offsetMs: 0, roundTripMs: 0 })
        metrics.clockOffset.set(0)
        onMeasured()
        return
      }
      if (!(await settledOrAborted(mongo.connected, signal))) return
      await runClockProbe({
        serverTime: (s) => mongo.serverTime(s),
        guard,
        clock,
        signal,
        onEstimate: (offsetMs) => {
          metrics.clockOffset.set(offsetMs / 1000)
          onMeasured()
        },
      })
    },
    readiness() {
      const heldBack = guard.heldBack()
      if (heldBack.length === 0) return undefined
      return { offsetMs: Math.round(guard.offsetMs() ?? 0), heldBack, reason: lastReason }
    },
  }
}
