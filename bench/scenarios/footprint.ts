/**
 * Scenario `footprint`: what one idle worker with ten nets costs the machine, next to bare Node.
 *
 * - Cold start, 5 trials: spawn of `leasecron run --config bench/nets/idle-ten.mjs` → its first acquire
 *   on the wire (the first `findAndModify leases` — an acquire — the op counter sees) and → `/readyz` answering 200 (polled
 *   every 10 ms), against spawn → exit of `node -e 0`; and spawn → exit of `leasecron once bench-net-1`
 *   (acquire, a pass that does nothing, release), what a serverless trigger pays each time; and one cold
 *   function instance of `leasecron/serverless` (bench/serverless-cold.mjs: import the entry, build the
 *   handlers, invoke the Lambda handler once for the slot due now): spawn → its answer printed, and the
 *   import and the answer as the process itself timed them (ms since it started).
 * - Idle minute: RSS (VmRSS) and CPU % of one core (utime + stime from /proc/<pid>/stat) over 60 s, for
 *   the ten nets at the shipped pace (every minute: TTL 180 s) and compressed (every second: TTL 3 s),
 *   each the only worker on its own fresh database, the two measured side by side in the same minute;
 *   against an idle `node -e "setInterval(() => {}, 1000)"` in the same minute.
 * - Consumer install: `npm pack`, then `npm install <tarball>` alone in an empty project — packages, MB,
 *   seconds and npm's warnings (footprint-install.ts), before the worker measures start.
 *
 * Not a load test: the nets do nothing, so this is the worker's own weight (Node, the driver, pino,
 * node-cron, the HTTP server; the forge client is built only when a pass reads it, which these never do).
 */
import { type MongoOpCounter, startMongoOpCounter } from '../mongo-op-counter.js'
import { type ConsumerInstallFigure, INSTALL_INPUTS, measureConsumerInstall } from './footprint-install.js'
import {
  type BenchContext,
  type Child,
  clockTicks,
  distribution,
  NETS,
  procSample,
  QUICK,
  type SandboxProcess,
  sig,
  sleep,
  spawnNode,
  startSandboxProcess,
  table,
  WORKER_MAIN,
  SERVERLESS_COLD,
  workerEnv,
  writeResult,
} from '../support.js'

export const COLD_STARTS = QUICK ? 2 : 11
export const IDLE_WINDOW_MS = QUICK ? 10_000 : 60_000

const everyMinute = Object.fromEntries(
  Array.from({ length: 10 }, (_, i) => [`LEASECRON_NET_BENCH_NET_${i + 1}_SCHEDULE`, '* * * * *']),
)

async function nodeColdStart(): Promise<number> {
  const child = spawnNode('node -e 0', '-e', ['0'], {})
  await child.exited
  return Date.now() - child.spawnedAt
}

/** Spawn → exit of `leasecron once bench-net-1`: acquire, one pass that does nothing, release. */
async function onceColdStart(env: Record<string, string>): Promise<number> {
  const child = spawnNode(
    'once',
    WORKER_MAIN,
    ['once', 'bench-net-1', '--config', NETS.idleTen],
    env,
    () => false,
  )
  const { code } = await child.exited
  if (code !== 0) throw new Error(`footprint: leasecron once exited ${code}`)
  return Date.now() - child.spawnedAt
}

/** One cold function instance: spawn → the first invocation's answer, and the child's own instants. */
async function serverlessColdStart(env: Record<string, string>): Promise<ServerlessTrial> {
  const isReady = (l: { event?: unknown }) => l.event === 'serverless-ready'
  const child = spawnNode('serverless', SERVERLESS_COLD, [NETS.idleTen, 'bench-net-2'], env, isReady)
  const line = await child.waitFor(isReady, 30_000, 'the serverless answer')
  const answeredAt = Date.now()
  const { code } = await child.exited
  if (code !== 0 || !['ran', 'slot-taken', 'held'].includes(String(line.outcome)))
    throw new Error(`footprint: the serverless instance answered ${String(line.outcome)}, exited ${code}`)
  return {
    serverlessMs: answeredAt - child.spawnedAt,
    serverlessImportMs: Math.round(Number(line.importedMs)),
    serverlessFirstInvocationMs: Math.round(Number(line.readyMs)),
  }
}

async function pollReady(port: number, deadline: number): Promise<number> {
  for (;;) {
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`)
      await answer.arrayBuffer()
      if (answer.status === 200) return Date.now()
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('footprint: /readyz never answered 200')
    await sleep(10)
  }
}

/** One cold function instance's figures (bench/serverless-cold.mjs). */
interface ServerlessTrial {
  /** Spawn → the first invocation's answer printed, timed by the bench. */
  serverlessMs: number
  /** The entry imported, ms since the child started (its own performance.now()). */
  serverlessImportMs: number
  /** The first invocation answered, ms since the child started. */
  serverlessFirstInvocationMs: number
}

/** One cold-start trial: its figures, against `node -e 0` spawned just before it. */
interface ColdTrial extends ServerlessTrial {
  firstAcquireMs: number
  readyMs: number
  onceMs: number
  nodeMs: number
}

/** Idle figures of one process over the window. */
interface IdleStats {
  rssMiB: { mean: number; max: number }
  cpuPercentOfOneCore: number
  cpuSeconds: number
}

interface IdleResult {
  windowS: number
  clockTicksPerSecond: number
  nodeIdle: IdleStats
  workerShippedPace: IdleStats & { rssOverNode: number }
  workerCompressedPace: IdleStats & { rssOverNode: number }
}

/** The lines a worker's output keeps: what the bench waits for. */
const keep = (l: { msg?: unknown }) =>
  typeof l.msg === 'string' && /^(serving|elected|campaigning)/.test(l.msg)

/** The scenario: cold starts, then the idle minute, then the result file and the table. */
export async function runFootprint(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const consumerInstall = await measureConsumerInstall()
  console.log(`bench footprint: consumer install: ${JSON.stringify(consumerInstall)}`)
  const counter = await startMongoOpCounter(context.mongo.url)
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  const children: Child[] = []
  let cold: ColdTrial[]
  let idle: IdleResult
  try {
    cold = await coldStarts(context, counter, sandbox, children)
    idle = await idleMinute(context, sandbox, children)
  } finally {
    await Promise.all(children.map((c) => c.stop('SIGTERM', 10_000)))
    await sandbox.child.stop()
    await counter.close()
  }
  const coldStart = summarizeColdStarts(cold)
  const path = await writeResult('footprint', context, startedAt, {
    inputs: INPUTS,
    consumerInstall,
    coldStart,
    idle,
  })
  console.log(`\n${table(summaryRows(coldStart, idle))}\n\n${table(installRows(consumerInstall))}\n`)
  console.log(`bench footprint: wrote ${path}`)
  return path
}

const INPUTS = {
  worker: '`node dist/bundle/leasecron.js`: the package bin as installed, the esbuild bundle',
  nets: 'bench/nets/idle-ten.mjs: ten passes that do nothing, ten leases',
  coldStarts: COLD_STARTS,
  coldStart:
    'spawn → first `findAndModify leases` (acquire) seen by bench/mongo-op-counter.ts; spawn → first 200 from /readyz (polled every 10 ms); `leasecron once bench-net-1`: spawn → exit; node -e 0: spawn → exit',
  serverlessColdStart:
    'bench/serverless-cold.mjs: `import("dist/bundle/serverless.js")`, createServerlessHandlers({ config: bench/nets/idle-ten.mjs }), handler({ net: "bench-net-2", time: now }) on the same Mongo and sandbox; spawn → its answer line, and its own performance.now() at the import and at the answer',
  idleWindowMs: IDLE_WINDOW_MS,
  idle: 'VmRSS sampled every second; CPU = Δ(utime + stime) / CLK_TCK / wall time, % of one core',
  paces: { shipped: '* * * * * (TTL 180 s, retry 60 s)', compressed: '* * * * * * (TTL 3 s, retry 1 s)' },
  baseline: 'node -e "setInterval(() => {}, 1000)" in the same minute',
  forge: 'the sandbox process is configured as the GitHub App; the nets never call it',
  consumerInstall: INSTALL_INPUTS,
}

async function coldStarts(
  context: BenchContext,
  counter: MongoOpCounter,
  sandbox: SandboxProcess,
  children: Child[],
): Promise<ColdTrial[]> {
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: counter.url,
    MONGO_DB: context.database('footprint_cold'),
  })
  const cold: ColdTrial[] = []
  for (let i = 0; i < COLD_STARTS; i++) {
    const nodeMs = await nodeColdStart()
    const trial = await workerColdStart(counter, env, i, children)
    const onceMs = await onceColdStart(env)
    const serverless = await serverlessColdStart(env)
    cold.push({ ...trial, onceMs, ...serverless, nodeMs })
    console.log(`bench footprint: cold start ${i + 1}/${COLD_STARTS}: ${JSON.stringify(cold.at(-1))}`)
  }
  return cold
}

/** Spawn → first acquire on the wire and → /readyz 200 of one `leasecron run`, stopped after. */
async function workerColdStart(
  counter: MongoOpCounter,
  env: Record<string, string>,
  i: number,
  children: Child[],
): Promise<{ firstAcquireMs: number; readyMs: number }> {
  let firstAcquire: number | undefined
  const off = counter.onOp((op) => {
    const write = op.command === 'findAndModify' || op.command === 'update'
    if (firstAcquire === undefined && write && op.collection === 'leases') firstAcquire = op.at
  })
  const w = spawnNode(`cold-${i + 1}`, WORKER_MAIN, ['run', '--config', NETS.idleTen], env, keep)
  children.push(w)
  try {
    const serving = await w.waitFor((l) => String(l.msg).startsWith('serving'), 30_000, 'the HTTP server')
    const readyAt = await pollReady(Number(serving.port), Date.now() + 30_000)
    const until = Date.now() + 30_000
    while (firstAcquire === undefined && Date.now() < until) await sleep(5)
    return { firstAcquireMs: (firstAcquire ?? Number.NaN) - w.spawnedAt, readyMs: readyAt - w.spawnedAt }
  } finally {
    off()
    await w.stop('SIGTERM', 10_000)
  }
}

/** The idle minute: the two paces and bare Node side by side, each worker on its own database. */
async function idleMinute(
  context: BenchContext,
  sandbox: SandboxProcess,
  children: Child[],
): Promise<IdleResult> {
  const idleWorker = (label: string, extra: Record<string, string>, db: string) =>
    spawnNode(
      label,
      WORKER_MAIN,
      ['run', '--config', NETS.idleTen],
      workerEnv({ ...sandbox.env, ...extra, MONGO_URI: context.mongo.url, MONGO_DB: context.database(db) }),
      keep,
    )
  const shipped = idleWorker('idle (every minute)', everyMinute, 'footprint_min')
  const compressed = idleWorker('idle (every second)', {}, 'footprint_sec')
  const bare = spawnNode('node idle', '-e', ['setInterval(() => {}, 1000)'], {})
  children.push(shipped, compressed, bare)
  for (const w of [shipped, compressed]) await w.waitFor((l) => l.msg === 'elected', 30_000, 'an election')
  await sleep(5_000)
  const { stats, windowS } = await sampleIdle({ shipped, compressed, bare })
  const withRatio = (s: IdleStats) => ({ ...s, rssOverNode: sig(s.rssMiB.mean / stats.bare!.rssMiB.mean, 3) })
  return {
    windowS,
    clockTicksPerSecond: clockTicks(),
    nodeIdle: stats.bare!,
    workerShippedPace: withRatio(stats.shipped!),
    workerCompressedPace: withRatio(stats.compressed!),
  }
}

/** RSS every second and CPU over the window, per subject. */
async function sampleIdle(
  subjects: Record<string, Child>,
): Promise<{ stats: Record<string, IdleStats>; windowS: number }> {
  const sampleAll = async () =>
    Object.fromEntries(
      await Promise.all(
        Object.entries(subjects).map(async ([k, c]) => [k, await procSample(c.pid)] as const),
      ),
    )
  const first = await sampleAll()
  const rss: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]))
  const t0 = Date.now()
  while (Date.now() - t0 < IDLE_WINDOW_MS) {
    await sleep(1_000)
    for (const [k, c] of Object.entries(subjects)) {
      const s = await procSample(c.pid)
      if (s) rss[k]!.push(s.rssKiB)
    }
  }
  const elapsedS = (Date.now() - t0) / 1000
  const last = await sampleAll()
  const hz = clockTicks()
  const describe = (k: string): IdleStats => {
    const values = rss[k]!
    const cpuSeconds = (last[k]!.ticks - first[k]!.ticks) / hz
    return {
      rssMiB: {
        mean: sig(values.reduce((s, v) => s + v, 0) / values.length / 1024, 3),
        max: sig(Math.max(...values) / 1024, 3),
      },
      cpuPercentOfOneCore: sig((cpuSeconds / elapsedS) * 100, 3),
      cpuSeconds: sig(cpuSeconds, 3),
    }
  }
  const stats = Object.fromEntries(Object.keys(subjects).map((k) => [k, describe(k)]))
  return { stats, windowS: sig(elapsedS, 4) }
}

function summarizeColdStarts(cold: ColdTrial[]) {
  const firstAcquire = distribution(cold.map((c) => c.firstAcquireMs))
  const ready = distribution(cold.map((c) => c.readyMs))
  const onceTotal = distribution(cold.map((c) => c.onceMs))
  const node = distribution(cold.map((c) => c.nodeMs))
  const serverless = distribution(cold.map((c) => c.serverlessMs))
  return {
    serverless,
    serverlessImport: distribution(cold.map((c) => c.serverlessImportMs)),
    serverlessFirstInvocation: distribution(cold.map((c) => c.serverlessFirstInvocationMs)),
    serverlessOverNode: sig(serverless.medianMs / node.medianMs, 3),
    trials: cold,
    firstAcquire,
    ready,
    once: onceTotal,
    nodeE0: node,
    firstAcquireOverNode: sig(firstAcquire.medianMs / node.medianMs, 3),
    readyOverNode: sig(ready.medianMs / node.medianMs, 3),
    onceOverNode: sig(onceTotal.medianMs / node.medianMs, 3),
  }
}

/** The table printed at the end: leasecron, node and their ratio per measure. */
function summaryRows(coldStart: ReturnType<typeof summarizeColdStarts>, idle: IdleResult): string[][] {
  const node = String(coldStart.nodeE0.medianMs)
  const bare = idle.nodeIdle
  const { workerShippedPace: shipped, workerCompressedPace: compressed } = idle
  return [
    ['measure', 'leasecron', 'node', 'ratio'],
    [
      'cold start → first acquire (median ms)',
      String(coldStart.firstAcquire.medianMs),
      node,
      `${coldStart.firstAcquireOverNode}×`,
    ],
    [
      'cold start → /readyz 200 (median ms)',
      String(coldStart.ready.medianMs),
      node,
      `${coldStart.readyOverNode}×`,
    ],
    [
      '`once`, a pass that does nothing: spawn → exit (median ms)',
      String(coldStart.once.medianMs),
      node,
      `${coldStart.onceOverNode}×`,
    ],
    [
      '`leasecron/serverless`, cold instance: spawn → first invocation answered (median ms)',
      String(coldStart.serverless.medianMs),
      node,
      `${coldStart.serverlessOverNode}×`,
    ],
    [
      '… of which: import of the entry / first invocation, in-process (median ms since start)',
      `${coldStart.serverlessImport.medianMs} / ${coldStart.serverlessFirstInvocation.medianMs}`,
      '',
      '',
    ],
    [
      'RSS, shipped pace (MiB)',
      String(shipped.rssMiB.mean),
      String(bare.rssMiB.mean),
      `${shipped.rssOverNode}×`,
    ],
    [
      'RSS, compressed pace (MiB)',
      String(compressed.rssMiB.mean),
      String(bare.rssMiB.mean),
      `${compressed.rssOverNode}×`,
    ],
    ['CPU %, shipped pace', String(shipped.cpuPercentOfOneCore), String(bare.cpuPercentOfOneCore), ''],
    ['CPU %, compressed pace', String(compressed.cpuPercentOfOneCore), String(bare.cpuPercentOfOneCore), ''],
  ]
}

/** The consumer install's table: what `npm install <tarball>` cost an empty project. */
function installRows(install: ConsumerInstallFigure): string[][] {
  return [
    ['consumer install (npm install <tarball>)', 'value'],
    ['packages', `${install.packages} (${install.packageNames.join(', ')})`],
    ['megabytes under node_modules', String(install.megabytes)],
    ['seconds', String(install.seconds)],
    ['EBADENGINE', install.engineWarnings.join(', ') || 'none'],
    ['npm warnings', String(install.warnings.length)],
    ['node / npm', `${install.node} / ${install.npm}`],
  ]
}
