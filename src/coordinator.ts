/**
 * leaseCoordinator(): a node-cron 4.6 `RunCoordinator` over a lease store and, optionally, the run ledger,
 * for services that already schedule with node-cron and need each fire of a `distributed: true` task to run
 * on one process of many.
 *
 * Which store decides what, and why:
 * - The lease store elects the process that runs a task's fires: one lease per task (`cron:<task name>`),
 *   a term per holder. The holder renews its term on every fire and runs it; every other process's acquire
 *   is refused and it skips. A lease per task, not per fire, because a lease per fire would leave one store
 *   record behind per fire (the store has no pruning) or, released at `onComplete`, let a process that
 *   reaches the same fire late take it again. A holder that dies costs the fires that fall before its term
 *   expires (node-cron's `distributedLease`, 30 s by default), then the next fire elects another process.
 * - The run ledger, when given, records each fire as a slot (net = task name, slot = the fire's scheduled
 *   instant, fence = the term's fence) and the slot claim is the last word: a fire whose slot is already
 *   claimed does not run, even on a process that believes it holds the lease (a holder that stalled past
 *   its expiry while a successor took over). It also gives each task a history (`outcome: 'ok'` means
 *   node-cron reported the fire finished: its `onComplete` does not say whether the task threw — listen
 *   to the task's `execution:failed` for that). The holder prunes old records every `pruneEvery` fires.
 *
 * - The net control store, when given, pauses a task the way it pauses a net (`pauseNet`, `leasecron
 *   pause <task name>`): the holder skips a fire due while its task is paused (node-cron reports it
 *   `execution:skipped`) and, with a ledger, records its slot `paused`. A control store that does not
 *   answer pauses nothing (the fire runs, as a worker's does): pausing is a convenience, never the reason
 *   a fire is lost.
 *
 * Without a ledger a fire runs exactly once as long as no process reaches a fire more than the lease's
 * ttl after another did. What it is not: a lock around the task's work (a task that must never run twice
 * keeps a claim on the item itself), nor a scheduler (node-cron keeps the schedule on every process).
 */
import type { RunCoordinator } from 'node-cron'
import { type Clock, systemClock } from './lease/clock.js'
import { ownerId } from './lease/owner-id.js'
import { type LeaseGrant, LeaseLostError, type LeaseStore } from './lease/store.js'
import type { RunLedger } from './runs/run-ledger.js'
import { describePause, type NetControlStore, type NetPause } from './control/net-control-store.js'

export interface LeaseCoordinatorOptions {
  /** Where the per-task leases live (MongoStore across processes; MemoryStore within one). */
  store: LeaseStore
  /** This process's identity in the store; `ownerId()` by default (host name + a random suffix). */
  owner?: string
  /** Records each fire as a slot and refuses a slot claimed before (see the module doc). */
  ledger?: RunLedger
  /** Pauses by task name (pauseNet, `leasecron pause`): a paused task's fires are skipped (module doc). */
  controls?: NetControlStore
  /** Prefix of each task's lease name (`cron:` by default), so cron tasks never collide with nets. */
  leasePrefix?: string
  /** Keep this many ledger records per task when pruning (1000 by default). */
  keepRuns?: number
  /** Prune a task's ledger records after every this many fires it ran here (100 by default). */
  pruneEvery?: number
  /** Time for store and ledger calls (tests pass their own). */
  clock?: Clock
}

/** A node-cron `RunCoordinator` that can also step down. */
export interface LeaseCoordinator extends RunCoordinator {
  /** This process's owner id in the lease store and the ledger. */
  readonly owner: string
  /**
   * Resolves `true` when this process runs the fire `key` (`<task name>:<slot ISO>`, as node-cron builds
   * it), `false` when another process does. Rejects (node-cron then skips the fire, fail-closed, and logs
   * it) when the key is not node-cron's, or the store or the ledger gave no answer.
   */
  shouldRun(key: string, ttlMs: number): Promise<boolean>
  /** Records the fire's end in the ledger (a no-op without one). Rejects when the ledger gave no answer. */
  onComplete(key: string): Promise<void>
  /** Steps down: releases every lease this coordinator holds, so another process takes the next fire. */
  close(): Promise<void>
}

/** A coordinator call that could not be made: a key that is not node-cron's, or options that are wrong. */
export class LeaseCoordinatorError extends Error {
  override readonly name = 'LeaseCoordinatorError'
  readonly code: 'COORDINATOR_BAD_KEY' | 'COORDINATOR_BAD_OPTIONS'
  readonly component = 'lease-coordinator'

  constructor(code: LeaseCoordinatorError['code'], detail: string) {
    super(`lease-coordinator: ${detail}`)
    this.code = code
  }
}

/** node-cron's key: `${name}:${slot.toISOString()}`; the name may itself contain colons. */
const KEY = /^(.+):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/

/** Splits a node-cron coordination key into the task name and the fire's slot. */
export function parseFireKey(key: string): { task: string; slot: Date } {
  const match = typeof key === 'string' ? KEY.exec(key) : null
  const slot = match ? new Date(match[2] as string) : undefined
  if (!match || !slot || Number.isNaN(slot.getTime())) {
    throw new LeaseCoordinatorError(
      'COORDINATOR_BAD_KEY',
      `expected a node-cron key "<task name>:<slot ISO instant>", got ${JSON.stringify(String(key).slice(0, 80))}`,
    )
  }
  return { task: match[1] as string, slot }
}

interface Settings {
  store: LeaseStore
  ledger: RunLedger | undefined
  controls: NetControlStore | undefined
  owner: string
  prefix: string
  keepRuns: number
  pruneEvery: number
  clock: Clock
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new LeaseCoordinatorError(
      'COORDINATOR_BAD_OPTIONS',
      `${name} must be a whole number ≥ 1, got ${value}`,
    )
  }
  return value
}

function settle(options: LeaseCoordinatorOptions): Settings {
  if (!options?.store || typeof options.store.acquire !== 'function') {
    throw new LeaseCoordinatorError('COORDINATOR_BAD_OPTIONS', 'expected options.store to be a LeaseStore')
  }
  return {
    store: options.store,
    ledger: options.ledger,
    controls: options.controls,
    owner: options.owner ?? ownerId(),
    prefix: options.leasePrefix ?? 'cron:',
    keepRuns: positiveInteger('keepRuns', options.keepRuns, 1000),
    pruneEvery: positiveInteger('pruneEvery', options.pruneEvery, 100),
    clock: options.clock ?? systemClock,
  }
}

/**
 * Builds a coordinator; pass it to `cron.setRunCoordinator(…)` or a task's `runCoordinator` option, with
 * `distributed: true` and a `name` on each task. Throws LeaseCoordinatorError on options that are wrong.
 */
export function leaseCoordinator(options: LeaseCoordinatorOptions): LeaseCoordinator {
  const settings = settle(options)
  const terms = new Map<string, LeaseGrant>()
  const claimed = new Map<string, number>()
  const ran = new Map<string, number>()
  const queues = new Map<string, Promise<unknown>>()

  /** One store call at a time per task, so two overlapping fires never start two terms. */
  const serial = <T>(task: string, step: () => Promise<T>): Promise<T> => {
    const next = (queues.get(task) ?? Promise.resolve()).then(step, step)
    queues.set(
      task,
      next.catch(() => undefined),
    )
    return next
  }

  const hold = (task: string, ttlMs: number) => serial(task, () => holdTerm(settings, terms, task, ttlMs))

  return {
    owner: settings.owner,
    async shouldRun(key, ttlMs) {
      const { task, slot } = parseFireKey(key)
      const grant = await hold(task, ttlMs)
      if (!grant) return false
      if (await skippedForPause(settings, task, slot, grant)) return false
      if (!settings.ledger) return true
      const won = await settings.ledger.claim({
        net: task,
        slot,
        owner: settings.owner,
        fence: grant.fence,
        startedAt: settings.clock.now(),
      })
      if (won) claimed.set(key, grant.fence)
      return won
    },
    async onComplete(key) {
      const fence = claimed.get(key)
      if (!settings.ledger || fence === undefined) return
      claimed.delete(key)
      const { task, slot } = parseFireKey(key)
      const finishedAt = settings.clock.now()
      await settings.ledger.finish(task, slot, settings.owner, fence, { finishedAt, outcome: 'ok' })
      const count = (ran.get(task) ?? 0) + 1
      ran.set(task, count)
      if (count % settings.pruneEvery === 0) await settings.ledger.prune(task, settings.keepRuns)
    },
    async close() {
      const held = [...terms.entries()]
      terms.clear()
      await Promise.all(held.map(([task, grant]) => serial(task, () => stepDown(settings, grant))))
    },
  }
}

/**
 * Whether the holder skips the fire because its task is paused; records the slot `paused` in the ledger
 * (when given) first. A control store that does not answer pauses nothing.
 */
async function skippedForPause(
  settings: Settings,
  task: string,
  slot: Date,
  grant: LeaseGrant,
): Promise<boolean> {
  if (!settings.controls) return false
  const now = settings.clock.now()
  const pause: NetPause | undefined = await settings.controls.get(task, now).then(
    (control) => control.paused,
    () => undefined,
  )
  if (!pause) return false
  const reason = describePause(pause)
  const entry = { net: task, slot, owner: settings.owner, fence: grant.fence, at: now, reason }
  await settings.ledger?.account({ ...entry, outcome: 'paused' })
  return true
}

/**
 * Renews this process's term of the task's lease, or campaigns for a new one when it has none or lost it.
 * Resolves the grant this fire runs under, or false when another process holds the lease.
 */
async function holdTerm(
  settings: Settings,
  terms: Map<string, LeaseGrant>,
  task: string,
  ttlMs: number,
): Promise<LeaseGrant | false> {
  const held = terms.get(task)
  // A rejected call leaves the term unknown: forget it, so the next fire campaigns afresh.
  terms.delete(task)
  if (held && (await settings.store.renew(held, settings.clock.now(), ttlMs))) {
    terms.set(task, held)
    return held
  }
  const lease = `${settings.prefix}${task}`
  const grant = await settings.store.acquire(lease, settings.owner, settings.clock.now(), ttlMs)
  if (grant) terms.set(task, grant)
  return grant
}

/** Releases a term; a lease another owner took meanwhile is theirs already, which is what stepping down wants. */
async function stepDown(settings: Settings, grant: LeaseGrant): Promise<void> {
  try {
    await settings.store.release(grant)
  } catch (error) {
    if (!(error instanceof LeaseLostError)) throw error
  }
}
