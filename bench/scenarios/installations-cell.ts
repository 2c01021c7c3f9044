/**
 * One cell of the installations bench (N installations × R replicas), measured in phases on live worker
 * processes: start (3 TTLs), a steady window (store operations and forge requests counted), one replica
 * joins (3 TTLs), the replica holding most is SIGKILLed (takeover, then 3 TTLs). Holdings are polled from
 * the `leases` collection every half second. The figures and the printed table; the scenario
 * (installations.ts) starts the sandbox and the cells.
 *
 * Not a check: it records what it saw, and never fails on a number.
 */
import type { Db } from 'mongodb'
import { type Balance, balanced, balanceOf, holdings } from '../installations-tally.js'
import { classify, type MongoOp, type startMongoOpCounter } from '../mongo-op-counter.js'
import { type Child, type SandboxProcess, type SandboxStats, sig, sleep, table } from '../support.js'
import { leaseModel, replicaModel } from './store-load.js'

/** The compressed pace of a cell's net (installations.ts's paceFor). */
export interface Pace {
  ttlMs: number
  retryMs: number
  periodMs: number
  schedule: string
}

export type OpCounter = Awaited<ReturnType<typeof startMongoOpCounter>>
/** A worker child with its counted log lines (installations.ts's spawnWorker). */
export type Worker = Child & { counts: () => Record<string, number> }

/** The workers' counted lines summed (the killed one's included, as last seen). */
function countLines(workers: readonly Worker[]): Record<string, number> {
  const sum: Record<string, number> = {}
  for (const w of workers) for (const [k, v] of Object.entries(w.counts())) sum[k] = (sum[k] ?? 0) + v
  return sum
}

/** What `after` counted beyond `before`. */
function linesSince(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  )
}

export interface CellMeasure {
  installations: number
  replicas: number
  pace: Pace
  db: Db
  counter: OpCounter
  sandbox: SandboxProcess
  spawn: () => Worker
}

const POLL_MS = 500
/** The share keeper's interval: the quickest net's retry, at least 500 ms (src/worker/worker.ts). */
const shareInterval = (pace: Pace) => Math.max(500, pace.retryMs)

async function ownerOf(w: Child): Promise<string> {
  const line = await w.waitFor((l) => typeof l.owner === 'string', 60_000, 'its owner id')
  return String(line.owner)
}

/** Polls the holdings for `forMs`: the balance at the end and when it first was as even as it can be. */
async function observe(
  c: CellMeasure,
  owners: readonly string[],
  forMs: number,
  onPoll: (byOwner: Map<string, string[]>) => void = () => undefined,
) {
  const start = Date.now()
  let last: Balance | undefined
  let firstBalancedMs: number | null = null
  const timeline: Array<[ms: number, held: number, ...perReplica: number[]]> = []
  let pollErrors = 0
  for (;;) {
    // A read the loaded store refuses (FerretDB's SQLite interrupts under load) is counted and skipped.
    const byOwner = await holdings(c.db).catch(() => undefined)
    if (!byOwner) {
      pollErrors++
      if (Date.now() - start >= forMs + (last ? 0 : 30_000)) break
      await sleep(POLL_MS)
      continue
    }
    onPoll(byOwner)
    last = balanceOf(byOwner, owners, c.installations)
    timeline.push([Date.now() - start, last.held, ...last.perReplica])
    if (firstBalancedMs === null && balanced(last, c.installations)) firstBalancedMs = Date.now() - start
    if (Date.now() - start >= forMs) break
    await sleep(POLL_MS)
  }
  return {
    ...(last ?? balanceOf(new Map(), owners, c.installations)),
    firstBalancedMs,
    afterMs: Date.now() - start,
    pollErrors,
    timeline,
  }
}

/** Store operations per hour over `ops` (a window of `ms`), per lease and beside the model. */
function opFigures(ops: readonly MongoOp[], ms: number, c: CellMeasure, replicas: number) {
  const perHour = (n: number) => Math.round((n / ms) * 3_600_000)
  const { byKind, byCommand } = classify(ops)
  const on = (collection: string) =>
    Object.entries(byCommand)
      .filter(([key]) => key.split(' ')[1] === collection)
      .reduce((n, [, count]) => n + count, 0)
  const lease = perHour(byKind.lease)
  const model = leaseModel(c.installations, replicas, c.pace.ttlMs, c.pace.retryMs)
  const leases = c.installations
  return {
    windowMs: ms,
    perHour: {
      all: perHour(ops.length),
      lease,
      replicas: perHour(on('replicas')),
      ledger: perHour(on('net_runs')),
      monitoring: perHour(byKind.monitoring),
      otherData: perHour(byKind.data - on('replicas') - on('net_runs')),
    },
    model: { leasePerHour: model, announcementsPerHour: replicaModel(replicas, shareInterval(c.pace)) },
    perLeasePerHour: {
      lease: sig(lease / leases, 3),
      leaseModel: sig(model / leases, 3),
      storeWork: sig((lease + perHour(on('replicas')) + perHour(on('net_runs'))) / leases, 3),
    },
    leaseOverModel: sig(lease / model, 3),
  }
}

/** Forge requests per installation per hour between two of the sandbox's snapshots, by route. */
function forgeFigures(before: SandboxStats | undefined, after: SandboxStats, ms: number, n: number) {
  const byRoute = new Map<string, number>()
  const add = (s: SandboxStats | undefined, sign: number) => {
    for (const e of s?.entries ?? []) {
      const key = e.route.startsWith(`${e.method} `) ? e.route : `${e.method} ${e.route}`
      byRoute.set(key, (byRoute.get(key) ?? 0) + sign * e.count)
    }
  }
  add(after, 1)
  add(before, -1)
  const rate = (count: number) => sig((count / n / ms) * 3_600_000, 3)
  const total = [...byRoute.values()].reduce((a, b) => a + b, 0)
  return {
    ms,
    requests: total,
    perInstallationPerHour: rate(total),
    byRoutePerInstallationPerHour: Object.fromEntries(
      [...byRoute].filter(([, count]) => count > 0).map(([route, count]) => [route, rate(count)]),
    ),
  }
}

/** The steady window: counts the workers' store operations and the sandbox's requests for 4 TTLs (≥ 20 s). */
async function steadyWindow(c: CellMeasure, replicas: number) {
  const ms = Math.max(20_000, 4 * c.pace.ttlMs)
  const from = c.counter.ops().length
  const before = await c.sandbox.stats()
  const start = Date.now()
  await sleep(ms)
  const ops = c.counter.ops().slice(from)
  const elapsed = Date.now() - start
  const after = await c.sandbox.stats()
  return {
    store: opFigures(ops, elapsed, c, replicas),
    forge: forgeFigures(before, after, elapsed, c.installations),
    droppedOps: c.counter.dropped(),
  }
}

/** `read`, tried up to five times a second apart: the loaded store interrupts a read now and then. */
export async function retried<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read()
    } catch (error) {
      if (attempt >= 5) throw error
      await sleep(1_000)
    }
  }
}

/** SIGKILLs the replica holding most; the takeover of its leases and the balance 3 TTLs after. */
async function killOne(c: CellMeasure, workers: Worker[], owners: string[]) {
  const byOwner = await retried(() => holdings(c.db))
  const index = owners.reduce(
    (best, o, i) => ((byOwner.get(o)?.length ?? 0) > (byOwner.get(owners[best]!)?.length ?? 0) ? i : best),
    0,
  )
  const victim = workers[index]!
  const victimOwner = owners[index]!
  const orphaned = byOwner.get(victimOwner) ?? []
  const survivors = owners.filter((_, i) => i !== index)
  const sentAt = Date.now()
  victim.child.kill('SIGKILL')
  await victim.exited
  workers.splice(index, 1)
  let takeoverMs: number | null = null
  const after = await observe(c, survivors, 3 * c.pace.ttlMs, (now) => {
    if (takeoverMs !== null) return
    const holderOf = new Map([...now].flatMap(([o, leases]) => leases.map((l) => [l, o] as const)))
    if (orphaned.every((l) => holderOf.has(l) && holderOf.get(l) !== victimOwner))
      takeoverMs = Date.now() - sentAt
  })
  return {
    killedHeld: orphaned.length,
    takeoverMs,
    boundMs: c.pace.ttlMs + c.pace.retryMs,
    balance: after,
  }
}

/** Runs `phase` and adds the term and share lines every worker logged meanwhile. */
async function counted<T extends object>(all: readonly Worker[], phase: () => Promise<T>) {
  const before = countLines(all)
  const result = await phase()
  return { ...result, lines: linesSince(before, countLines(all)) }
}

/** Runs the phases of one cell; the slot window is from 3 TTLs after start to one period before the stop. */
export async function measureCell(c: CellMeasure) {
  c.counter.reset()
  await c.sandbox.resetStats()
  const cellStart = Date.now()
  const workers = Array.from({ length: c.replicas }, () => c.spawn())
  const all = [...workers]
  try {
    const owners = await Promise.all(workers.map(ownerOf))
    const started = Date.now()
    // Each phase said as it ends, so a cell that fails says how far it got.
    const said = (phase: string) =>
      console.log(
        `bench installations: ${c.installations} × ${c.replicas}: ${phase} done at +${Date.now() - cellStart} ms`,
      )
    const start = await counted(all, () => observe(c, owners, 3 * c.pace.ttlMs))
    said('start')
    const window = await counted(all, () => steadyWindow(c, c.replicas))
    said('steady window')
    const joiner = c.spawn()
    workers.push(joiner)
    all.push(joiner)
    owners.push(await ownerOf(joiner))
    const join = await counted(all, () => observe(c, owners, 3 * c.pace.ttlMs))
    said('join')
    const kill = await counted(all, () => killOne(c, workers, owners))
    said('kill')
    const stopAt = Date.now()
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 10_000)))
    const cellMs = Date.now() - cellStart
    const whole = {
      store: opFigures(c.counter.ops(), cellMs, c, c.replicas),
      forge: forgeFigures(undefined, await c.sandbox.stats(), cellMs, c.installations),
      lines: countLines(all),
    }
    const figures = { balance: { start, join, kill: kill.balance }, takeover: kill, window, whole }
    return { figures, slotsFrom: started + 3 * c.pace.ttlMs, slotsTo: stopAt - c.pace.periodMs }
  } finally {
    await Promise.all(workers.map((w) => w.stop('SIGTERM', 10_000)))
  }
}

// biome-ignore lint/suspicious/noExplicitAny: the cells as the scenario assembled them, for printing
type Cell = Record<string, any>

export function printCells(cells: Cell[], path: string): void {
  const ratio = (b: Cell) => (b.maxOverMin === null ? '∞' : String(b.maxOverMin))
  const rows = [
    [
      'N × R',
      'TTL',
      'bal start',
      'bal join',
      'bal kill',
      'takeover / bound',
      'lease ops/h/lease (model)',
      'forge/inst/h',
      'slots ran/expected',
      'dup',
      'not run',
    ],
    ...cells.map((c) => [
      `${c.installations} × ${c.replicas}`,
      `${c.pace.ttlMs / 1000} s`,
      ratio(c.balance.start),
      ratio(c.balance.join),
      ratio(c.balance.kill),
      `${c.takeover.takeoverMs ?? '—'} / ${c.takeover.boundMs} ms`,
      `${c.window.store.perLeasePerHour.lease} (${c.window.store.perLeasePerHour.leaseModel})`,
      String(c.window.forge.perInstallationPerHour),
      `${c.slots.ranOnce}/${c.slots.expected}`,
      String(c.slots.duplicateLines),
      String(c.slots.notRun),
    ]),
  ]
  console.log(`\n${table(rows)}\n`)
  console.log(`bench installations: wrote ${path}`)
}
