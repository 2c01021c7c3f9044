/**
 * Liveness for `/healthz`: the process is live while its event loop keeps turning and every campaign
 * keeps attempting (campaign-heartbeats.ts). A loop
 * blocked outright cannot answer the probe at all (the probe times out); this catches the loop that still
 * answers now and then but is stalled for seconds at a time (a synchronous hot spot, a pass gone wrong),
 * during which campaigns cannot renew and every term steps down.
 *
 * It does not check the store or the forge (that is `/readyz`: a restart cures neither).
 */
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks'
import type { StaleCampaign } from './campaign-heartbeats.js'

/** Above this many milliseconds of event-loop delay since the previous check, the process is not live. */
export const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 5_000

export interface LivenessReport {
  live: boolean
  /** The longest event-loop delay seen since the previous check, in whole milliseconds. */
  eventLoopDelayMs: number
  maxEventLoopDelayMs: number
}

export interface EventLoopLiveness {
  /**
   * Whether the loop stayed under the limit since the previous check (or since start), and starts a new
   * window. Each check covers only its own window, so one long pause fails one probe, never a series:
   * the kubelet restarts a pod only when the loop is stalled probe after probe.
   */
  check(): LivenessReport
  stop(): void
}

/** Starts sampling the event-loop delay (Node's own histogram, 20 ms resolution) until `stop()`. */
export function watchEventLoop(maxEventLoopDelayMs = DEFAULT_MAX_EVENT_LOOP_DELAY_MS): EventLoopLiveness {
  const histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 })
  histogram.enable()
  return {
    check() {
      // The histogram records nanoseconds; with no sample yet its max is 0.
      const eventLoopDelayMs = Math.round(histogram.max / 1e6)
      histogram.reset()
      return { live: eventLoopDelayMs <= maxEventLoopDelayMs, eventLoopDelayMs, maxEventLoopDelayMs }
    },
    stop: () => histogram.disable(),
  }
}

/**
 * The `/healthz` answer: 200 when the loop is live and no campaign is stale; 503 (the kubelet's failure)
 * with status `stalled` (the event loop) or `stuck` (naming each stale campaign, and the error of one that
 * ended abnormally) otherwise.
 */
export function livenessResponse(
  report: LivenessReport,
  staleCampaigns: readonly StaleCampaign[] = [],
): [status: number, body: string] {
  const live = report.live && staleCampaigns.length === 0
  const status = !report.live ? 'stalled' : live ? 'ok' : 'stuck'
  const stuck = staleCampaigns.map(
    (c) =>
      `${c.net} (lease ${c.lease}): ${
        c.endedWith === undefined
          ? `no attempt for ${c.silentMs} ms`
          : `the campaign ended abnormally (${c.endedWith})`
      }`,
  )
  return [
    live ? 200 : 503,
    JSON.stringify({
      status,
      ...report,
      live,
      ...(stuck.length > 0 ? { staleCampaigns, detail: `campaign stuck: ${stuck.join('; ')}` } : {}),
    }),
  ]
}
