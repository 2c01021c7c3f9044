/**
 * The scheduler: for each enabled net, a lease campaign (lease.run) whose terms run a node-cron task that
 * fires the net's passes, each in the net's forge lane.
 *
 * A tick that finds the previous pass still running is skipped and counted; a tick that finds the term
 * past its step-down instant starts nothing (checked synchronously, so a blocked event loop cannot start
 * a pass late). When the term ends the task stops and the pass in flight gets the abort and is awaited.
 * A pass that throws is logged with the net and pass number; it never ends the term or the process.
 */
import cron from 'node-cron'
import type { ForgeOctokit } from '../forge/github-app.js'
import { withLane } from '../forge/lane.js'
import type { Clock } from '../lease/clock.js'
import { type LeaseLog, run, type TermInfo } from '../lease/run.js'
import type { LeaseStore, LeaseTerm } from '../lease/store.js'
import type { NetLogger } from '../nets/net.js'
import type { NetConfig } from './config.js'
import type { Logger } from './logger.js'
import type { WorkerMetrics } from './metrics.js'

export interface NetCampaignOptions {
  store: LeaseStore
  owner: string
  net: NetConfig
  resources: unknown
  forge: ForgeOctokit
  log: Logger
  metrics: WorkerMetrics
  clock: Clock
  signal: AbortSignal
  /** Bench only: run every pass without a lease, as every replica did before ADR-117. */
  unelected?: boolean
  /** Filled with the net's term while one is served (by lease name), so a forced shutdown can release it. */
  held?: Map<string, LeaseTerm>
}

/** Campaigns for the net's lease until `signal` aborts; resolves when its term (if any) is over and released. */
export function runNetCampaign(options: NetCampaignOptions): Promise<void> {
  const { net, owner, metrics } = options
  const lease = net.net.lease
  const log = options.log.child({ net: net.net.name, lease })
  if (options.unelected) {
    return serveTerm(options, log, options.signal, {
      fence: 0,
      token: '',
      stepDownAt: () => Number.POSITIVE_INFINITY,
      live: () => !options.signal.aborted,
    })
  }
  return run(
    options.store,
    {
      name: lease,
      owner,
      ttlMs: net.pacing.ttlMs,
      retryMs: net.pacing.retryMs,
      signal: options.signal,
      clock: options.clock,
      log: leaseLog(log, metrics, lease, owner),
    },
    async (term, info) => {
      options.held?.set(lease, { name: lease, owner, token: info.token })
      try {
        await serveTerm(options, log, term, info)
      } finally {
        options.held?.delete(lease)
      }
    },
  )
}

/** Adapts lease.run's log to pino and derives the lease metrics from its term events. */
function leaseLog(log: Logger, metrics: WorkerMetrics, lease: string, owner: string): LeaseLog {
  const observe = (fields: Record<string, unknown> | undefined) => {
    switch (fields?.event) {
      case 'elected':
        metrics.termsStarted.inc({ lease })
        metrics.leaseHeld.set({ lease, owner }, 1)
        break
      case 'lost':
        metrics.stepDowns.inc({ lease, reason: 'lost' })
        break
      case 'stepping-down':
        metrics.stepDowns.inc({ lease, reason: 'deadline' })
        break
      case 'released':
      case 'release-lost':
      case 'release-failed':
        metrics.leaseHeld.set({ lease, owner }, 0)
        break
    }
  }
  // The logger is already bound to the lease and owner; repeating them would print each field twice.
  const rest = (fields: Record<string, unknown> | undefined) => {
    const { lease: _lease, owner: _owner, ...others } = fields ?? {}
    return others
  }
  return {
    info: (msg, fields) => {
      observe(fields)
      log.info(rest(fields), msg)
    },
    warn: (msg, fields) => {
      observe(fields)
      log.warn(rest(fields), msg)
    },
  }
}

async function serveTerm(
  options: NetCampaignOptions,
  log: Logger,
  term: AbortSignal,
  info: TermInfo,
): Promise<void> {
  const { net, metrics, clock, forge } = options
  const name = net.net.name
  const pass = net.net.term(options.resources, {
    options: net.options,
    log: log as unknown as NetLogger,
    signal: term,
    stepDownAt: info.stepDownAt,
  })
  let passNumber = 0
  let inFlight: Promise<void> | undefined

  const tick = () => {
    if (term.aborted) return
    if (inFlight) {
      metrics.skippedTicks.inc({ net: name, reason: 'overlap' })
      log.debug({ pass: passNumber }, 'tick skipped: the previous pass is still running')
      return
    }
    if (!info.live()) {
      metrics.skippedTicks.inc({ net: name, reason: 'deadline' })
      return
    }
    passNumber++
    const number = passNumber
    const passLog = log.child({ pass: number })
    const startedAt = clock.now()
    const timer = metrics.passDuration.startTimer({ net: name })
    passLog.debug({}, 'pass started')
    inFlight = withLane(name, () =>
      pass({
        signal: term,
        log: passLog as unknown as NetLogger,
        forge,
        pass: number,
        startedAt,
        now: () => clock.now(),
      }),
    )
      .then(
        () => passLog.debug({ ms: Math.round(timer() * 1000) }, 'pass finished'),
        (error: unknown) => {
          timer()
          metrics.passErrors.inc({ net: name })
          passLog.error({ err: error }, 'pass failed')
        },
      )
      .finally(() => {
        inFlight = undefined
      })
  }

  const task = cron.createTask(net.schedule, tick, {
    name: `${name}-${options.owner}`,
    logger: cronLogger(log),
  })
  await task.start()
  try {
    await new Promise<void>((resolve) => {
      if (term.aborted) return resolve()
      term.addEventListener('abort', () => resolve(), { once: true })
    })
  } finally {
    await task.destroy()
    await inFlight
  }
}

function cronLogger(log: Logger) {
  return {
    info: (message: string) => log.debug({ component: 'node-cron' }, message),
    warn: (message: string) => log.debug({ component: 'node-cron' }, message),
    error: (message: string | Error, err?: Error) =>
      log.warn({ component: 'node-cron', err: err ?? message }, 'node-cron error'),
    debug: (message: string | Error) => log.debug({ component: 'node-cron' }, String(message)),
  }
}
