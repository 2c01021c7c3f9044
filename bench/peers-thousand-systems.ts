/**
 * The systems of the thousand-schedules scenario and how each declares N every-minute jobs: the peers
 * scenario's set-ups (bench/peers-systems.ts, read, never changed) with the job count passed down
 * (BENCH_PEERS_JOBS, read by bench/peers/record-slot.mjs's `jobNames`), each one's settings said for N,
 * and the scenario's knobs read from the environment. Data and parsing only — the scenario spawns them.
 *
 * Not here: leasecron's CATCH_UP=all variant (one variable on the same worker; the peers scenario has it),
 * left out to keep a sitting under 45 minutes.
 */
import { PEER_SYSTEMS, type PeerSystem, type StoreAddresses } from './peers-systems.js'

export interface ThousandSystem {
  name: string
  base: PeerSystem
  /** Started first and alone, ready, before the other two. */
  firstAlone: boolean
  settings(jobs: number): string
  env(addresses: StoreAddresses, jobs: number): Record<string, string>
}

/** How each system declares its N jobs, in words for the result (N = 1 is the peers scenario's set-up). */
const DECLARATIONS: Record<string, (jobs: number) => string> = {
  leasecron: (n) =>
    `${n} nets bench-tick-0001…, each on its own lease, schedule \`* * * * *\`, pacing and CATCH_UP at their defaults (TTL 30 s, retry 30 s, latest); no fair share (opt-in)`,
  'node-cron': (n) =>
    `${n} tasks cron.schedule("* * * * *", …, { name, distributed: true, distributedLease: 90 s, runCoordinator }) in each process, one leaseCoordinator (a lease and ledger slot per task)`,
  agenda: (n) =>
    `one define("bench-tick") and ${n} job documents create("bench-tick", { job }).unique({ "data.job": job }, { insertOnly: true }).repeatEvery("* * * * *", { skipImmediate: true }); processEvery 5 s, lock lifetime 10 min, concurrency 5 (defaults); the first process declares alone (the jobs have no unique index, and FerretDB applies an upsert as a read and then a write)`,
  bullmq: (n) =>
    `${n} job schedulers upsertJobScheduler(job, { pattern: "* * * * *" }, { name: job }) on one queue from each process, one Worker each (concurrency 1), maxRetriesPerRequest null`,
  'pg-boss': (n) =>
    `${n} queues, each createQueue + schedule(job, "* * * * *") + work(job) in each process (pg-boss 10 keeps one schedule per queue, so ${n} pollers a process); cron monitor 30 s, polling 2 s (defaults); the first process started alone`,
  'graphile-worker': (n) =>
    `one task and ${n} crontab lines "* * * * * bench_tick ?id=<job> {job}" in run() of each process; no backfill, concurrency 1, poll 2 s (defaults)`,
}

/** Names in the scenario's order: leasecron first, then the peers as the peers scenario lists them. */
export const THOUSAND_SYSTEMS: readonly ThousandSystem[] = PEER_SYSTEMS.filter(
  (s) => s.name in DECLARATIONS,
).map((base) => ({
  name: base.name,
  base,
  firstAlone: base.firstAlone === true || base.name === 'agenda',
  settings: (jobs) => DECLARATIONS[base.name]!(jobs),
  env: (addresses, jobs) => ({ ...base.env(addresses), BENCH_PEERS_JOBS: String(jobs) }),
}))

/**
 * BENCH_PEERS_JOBS: the job count, and per-system counts after it (`1000,pg-boss=200,agenda=300`), for a
 * system that cannot hold the first; `fallback` when unset. Throws naming the variable on a bad item.
 */
export function jobCounts(value: string | undefined, fallback: number): (system: string) => number {
  const items = (value ?? '').split(',').map((s) => s.trim())
  const count = (text: string) => {
    const n = Number(text)
    if (!Number.isInteger(n) || n < 1)
      throw new Error(`BENCH_PEERS_JOBS: ${JSON.stringify(text)} is not a count ≥ 1`)
    return n
  }
  const all = items[0] ? count(items[0]) : fallback
  const bySystem = new Map<string, number>()
  for (const item of items.slice(1).filter(Boolean)) {
    const [name, n] = item.split('=')
    if (!name || n === undefined)
      throw new Error(`BENCH_PEERS_JOBS: ${JSON.stringify(item)} is not system=count`)
    bySystem.set(name.trim(), count(n.trim()))
  }
  return (system) => bySystem.get(system) ?? all
}

/** BENCH_PEERS_SYSTEMS (`leasecron,bullmq`): the systems to run, all six unless set; throws on an unknown name. */
export function chosenSystems(value: string | undefined): ThousandSystem[] {
  if (!value?.trim()) return [...THOUSAND_SYSTEMS]
  const names = value.split(',').map((s) => s.trim())
  const unknown = names.filter((n) => !THOUSAND_SYSTEMS.some((s) => s.name === n))
  if (unknown.length)
    throw new Error(
      `BENCH_PEERS_SYSTEMS: unknown ${unknown.join(', ')}; known: ${THOUSAND_SYSTEMS.map((s) => s.name).join(', ')}`,
    )
  return THOUSAND_SYSTEMS.filter((s) => names.includes(s.name))
}
