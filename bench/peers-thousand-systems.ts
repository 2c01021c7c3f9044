/**
 * The systems of the thousand-schedules scenario and how each declares N every-minute jobs: the peers
 * scenario's set-ups (bench/peers-systems.ts, read, never changed) with the job count passed down
 * (BENCH_PEERS_JOBS, read by bench/peers/record-slot.mjs's `jobNames`), each one's settings said for N,
 * and the scenario's knobs read from the environment. Data and parsing only — the scenario spawns them.
 *
 * Not here: leasecron's CATCH_UP=all variant (one variable on the same worker; the peers scenario has it),
 * left out to keep a sitting under 50 minutes. Here instead: `leasecron (image)`, the same worker on the
 * runtime its container image ships (the Dockerfile's Node 24, its ENTRYPOINT's V8 flags and its
 * NODE_OPTIONS), because that runtime, not the package's code, decides most of a process's RSS
 * (docs/shapes.md, "A Deployment: scaled with Mongo"); the plain `leasecron` row stays the machine's Node with no flag.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PEER_SYSTEMS, type PeerSystem, type StoreAddresses } from './peers-systems.js'
import { repoRoot } from './support.js'

export interface ThousandSystem {
  name: string
  base: PeerSystem
  /** Started first and alone, ready, before the other two. */
  firstAlone: boolean
  settings(jobs: number): string
  env(addresses: StoreAddresses, jobs: number): Record<string, string>
  /** Runs on the image's runtime (imageRuntime) rather than the machine's Node with no flags. */
  image?: true
}

/** The leasecron image's runtime, read from the Dockerfile so the two cannot drift. */
export interface ImageRuntime {
  /** The ENTRYPOINT's flags before the script (`--no-opt --no-maglev`). */
  nodeFlags: string[]
  /** The image's `ENV NODE_OPTIONS`. */
  nodeOptions: string
}

/** Reads the Dockerfile's ENTRYPOINT flags and NODE_OPTIONS; throws naming what it did not find. */
export function imageRuntime(dockerfile = join(repoRoot, 'Dockerfile')): ImageRuntime {
  const text = readFileSync(dockerfile, 'utf8')
  const options = /^ENV NODE_OPTIONS=(.+)$/m.exec(text)?.[1]?.trim()
  const entry = /^ENTRYPOINT (\[.*\])$/m.exec(text)?.[1]
  if (options === undefined || !entry)
    throw new Error(`bench: ${dockerfile} names no ENV NODE_OPTIONS or no ENTRYPOINT [...]`)
  const argv = JSON.parse(entry) as string[]
  return { nodeFlags: argv.filter((a) => a.startsWith('--')), nodeOptions: options }
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

const declared: ThousandSystem[] = PEER_SYSTEMS.filter((s) => s.name in DECLARATIONS).map((base) => ({
  name: base.name,
  base,
  firstAlone: base.firstAlone === true || base.name === 'agenda',
  settings: (jobs) => DECLARATIONS[base.name]!(jobs),
  env: (addresses, jobs) => ({ ...base.env(addresses), BENCH_PEERS_JOBS: String(jobs) }),
}))

/** leasecron's row again, on its image's runtime. */
function onImageRuntime(plain: ThousandSystem): ThousandSystem {
  return {
    ...plain,
    name: 'leasecron (image)',
    image: true,
    settings: (jobs) =>
      `${plain.settings(jobs)}; the image's runtime: Node 24 (.ci/run's NODE24_VERSION), ENTRYPOINT flags and ENV NODE_OPTIONS of the Dockerfile`,
    env: (addresses, jobs) => ({
      ...plain.env(addresses, jobs),
      NODE_OPTIONS: imageRuntime().nodeOptions,
    }),
  }
}

/** Names in the scenario's order: leasecron first (as its package runs, then on its image's runtime), then
 * the peers as the peers scenario lists them. */
export const THOUSAND_SYSTEMS: readonly ThousandSystem[] = declared.flatMap((s) =>
  s.name === 'leasecron' ? [s, onImageRuntime(s)] : [s],
)

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
