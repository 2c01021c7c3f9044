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
 * - Both Nodes: the one running the bench (the top-level figures) and the image's Node 24 (`node24`,
 *   installed under .cache/ like .ci/run does when missing, bench/node24.ts), trial by trial in the same
 *   sitting and side by side in the same idle minute; on Node 24 also the worker with the NODE_OPTIONS
 *   and the ENTRYPOINT's Node flags the Dockerfile sets (read from it), the figure the image ships.
 *
 * Not a load test: the nets do nothing, so this is the worker's own weight (Node, the driver, pino,
 * node-cron, the HTTP server; the forge client is built only when a pass reads it, which these never do).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type MongoOpCounter, startMongoOpCounter } from '../mongo-op-counter.js'
import { ensureNode24 } from '../node24.js'
import { type ConsumerInstallFigure, INSTALL_INPUTS, measureConsumerInstall } from './footprint-install.js'
import {
  type BenchContext,
  type Child,
  clockTicks,
  distribution,
  NETS,
  procSample,
  QUICK,
  repoRoot,
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

/** A Node the worker is measured on: its binary, its version, the NODE_OPTIONS and Node flags it runs with. */
interface Runtime {
  key: string
  path: string
  version: string
  nodeOptions?: string
  /** Flags on the command line before the script (V8 flags NODE_OPTIONS refuses). */
  nodeFlags?: string[]
}

/** The NODE_OPTIONS the Dockerfile sets for the worker (`ENV NODE_OPTIONS=…`), or undefined when none. */
async function imageNodeOptions(): Promise<string | undefined> {
  const dockerfile = await readFile(join(repoRoot, 'Dockerfile'), 'utf8')
  return /^ENV NODE_OPTIONS=(?:"([^"]*)"|(\S+))$/m
    .exec(dockerfile)
    ?.slice(1)
    .find((v) => v !== undefined)
}

/**
 * The Node flags the Dockerfile's ENTRYPOINT starts the CLI with (`["node", …flags, "dist/bundle/leasecron.js"]`),
 * or an empty list when none.
 */
async function imageNodeFlags(): Promise<string[]> {
  const dockerfile = await readFile(join(repoRoot, 'Dockerfile'), 'utf8')
  const entrypoint: string[] = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]')
  const script = entrypoint.indexOf('dist/bundle/leasecron.js')
  return script > 1 ? entrypoint.slice(1, script) : []
}

/** `script` and `args` as spawnNode takes them, with `runtime`'s Node flags in front. */
function withFlags(runtime: Runtime, script: string, args: string[]): [string, string[]] {
  const [first, ...rest] = [...(runtime.nodeFlags ?? []), script, ...args]
  return [first!, rest]
}

/** The environment `runtime` adds: its NODE_OPTIONS when it has any. */
const runtimeEnv = (runtime: Runtime): Record<string, string> =>
  runtime.nodeOptions ? { NODE_OPTIONS: runtime.nodeOptions } : {}

async function nodeColdStart(runtime: Runtime): Promise<number> {
  const child = spawnNode('node -e 0', '-e', ['0'], {}, undefined, runtime.path)
  await child.exited
  return Date.now() - child.spawnedAt
}

/** Spawn → exit of `leasecron once bench-net-1`: acquire, one pass that does nothing, release. */
async function onceColdStart(env: Record<string, string>, runtime: Runtime): Promise<number> {
  const child = spawnNode(
    'once',
    WORKER_MAIN,
    ['once', 'bench-net-1', '--config', NETS.idleTen],
    { ...env, ...runtimeEnv(runtime) },
    () => false,
    runtime.path,
  )
  const { code } = await child.exited
  if (code !== 0) throw new Error(`footprint: leasecron once exited ${code}`)
  return Date.now() - child.spawnedAt
}

/** One cold function instance: spawn → the first invocation's answer, and the child's own instants. */
async function serverlessColdStart(env: Record<string, string>, runtime: Runtime): Promise<ServerlessTrial> {
  const isReady = (l: { event?: unknown }) => l.event === 'serverless-ready'
  const child = spawnNode(
    'serverless',
    SERVERLESS_COLD,
    [NETS.idleTen, 'bench-net-2'],
    { ...env, ...runtimeEnv(runtime) },
    isReady,
    runtime.path,
  )
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
  /** Node 24 only: the shipped pace with the NODE_OPTIONS and the ENTRYPOINT's Node flags the Dockerfile sets. */
  workerShippedPaceImage?: IdleStats & { rssOverNode: number }
}

/** The lines a worker's output keeps: what the bench waits for. */
const keep = (l: { msg?: unknown }) =>
  typeof l.msg === 'string' && /^(serving|elected|campaigning)/.test(l.msg)

/** The Node running the bench and the image's Node 24 (installed when missing), with the image's options. */
async function runtimes(): Promise<{ current: Runtime; node24: Runtime; node24Image: Runtime }> {
  const node24 = await ensureNode24()
  const options = await imageNodeOptions()
  const flags = await imageNodeFlags()
  return {
    current: { key: 'current', path: process.execPath, version: process.version },
    node24: { key: 'node24', ...node24 },
    node24Image: {
      key: 'node24Image',
      ...node24,
      ...(options ? { nodeOptions: options } : {}),
      ...(flags.length > 0 ? { nodeFlags: flags } : {}),
    },
  }
}

/** The scenario: cold starts, then the idle minute, then the result file and the table. */
export async function runFootprint(context: BenchContext): Promise<string> {
  const startedAt = Date.now()
  const consumerInstall = await measureConsumerInstall()
  console.log(`bench footprint: consumer install: ${JSON.stringify(consumerInstall)}`)
  const nodes = await runtimes()
  const counter = await startMongoOpCounter(context.mongo.url)
  const sandbox = await startSandboxProcess({ repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 1 })
  const children: Child[] = []
  let cold: Record<string, ColdTrial[]>
  let idle: Record<string, IdleResult>
  try {
    cold = await coldStarts(context, counter, sandbox, children, [nodes.current, nodes.node24])
    idle = await idleMinute(context, sandbox, children, nodes)
  } finally {
    await Promise.all(children.map((c) => c.stop('SIGTERM', 10_000)))
    await sandbox.child.stop()
    await counter.close()
  }
  const coldStart = summarizeColdStarts(cold.current!)
  const node24 = {
    node: nodes.node24.version,
    imageNodeOptions: nodes.node24Image.nodeOptions ?? null,
    imageNodeFlags: nodes.node24Image.nodeFlags ?? [],
    coldStart: summarizeColdStarts(cold.node24!),
    idle: idle.node24!,
  }
  const path = await writeResult('footprint', context, startedAt, {
    inputs: INPUTS,
    consumerInstall,
    coldStart,
    idle: idle.current!,
    node24,
  })
  console.log(`\n${table(summaryRows(coldStart, idle.current!))}\n`)
  console.log(`Node ${node24.node} (the image's):\n${table(summaryRows(node24.coldStart, node24.idle))}\n`)
  console.log(`${table(installRows(consumerInstall))}\n\nbench footprint: wrote ${path}`)
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
  nodes:
    "top-level figures: the Node running the bench; `node24`: the image's Node (.ci/run's NODE24_VERSION, under .cache/), each trial on both Nodes in turn, the idle minute side by side; `node24.idle.workerShippedPaceImage`: with the NODE_OPTIONS and the ENTRYPOINT's Node flags the Dockerfile sets",
}

async function coldStarts(
  context: BenchContext,
  counter: MongoOpCounter,
  sandbox: SandboxProcess,
  children: Child[],
  nodes: Runtime[],
): Promise<Record<string, ColdTrial[]>> {
  const env = workerEnv({
    ...sandbox.env,
    MONGO_URI: counter.url,
    MONGO_DB: context.database('footprint_cold'),
  })
  const cold: Record<string, ColdTrial[]> = Object.fromEntries(nodes.map((n) => [n.key, []]))
  for (let i = 0; i < COLD_STARTS; i++)
    for (const runtime of nodes) {
      const nodeMs = await nodeColdStart(runtime)
      const trial = await workerColdStart(counter, env, i, children, runtime)
      const onceMs = await onceColdStart(env, runtime)
      const serverless = await serverlessColdStart(env, runtime)
      cold[runtime.key]!.push({ ...trial, onceMs, ...serverless, nodeMs })
      console.log(
        `bench footprint: cold start ${i + 1}/${COLD_STARTS} on ${runtime.version}: ${JSON.stringify(cold[runtime.key]!.at(-1))}`,
      )
    }
  return cold
}

/** Spawn → first acquire on the wire and → /readyz 200 of one `leasecron run`, stopped after. */
async function workerColdStart(
  counter: MongoOpCounter,
  env: Record<string, string>,
  i: number,
  children: Child[],
  runtime: Runtime,
): Promise<{ firstAcquireMs: number; readyMs: number }> {
  let firstAcquire: number | undefined
  const off = counter.onOp((op) => {
    const write = op.command === 'findAndModify' || op.command === 'update'
    if (firstAcquire === undefined && write && op.collection === 'leases') firstAcquire = op.at
  })
  const args = ['run', '--config', NETS.idleTen]
  const w = spawnNode(
    `cold-${i + 1}`,
    WORKER_MAIN,
    args,
    { ...env, ...runtimeEnv(runtime) },
    keep,
    runtime.path,
  )
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

/**
 * The idle minute: on each Node the two paces and bare Node, and on Node 24 the shipped pace with the
 * image's NODE_OPTIONS and ENTRYPOINT flags, all side by side, each worker on its own database.
 */
async function idleMinute(
  context: BenchContext,
  sandbox: SandboxProcess,
  children: Child[],
  nodes: { current: Runtime; node24: Runtime; node24Image: Runtime },
): Promise<Record<string, IdleResult>> {
  const idleWorker = (label: string, extra: Record<string, string>, runtime: Runtime) => {
    const env = { ...sandbox.env, ...extra, ...runtimeEnv(runtime) }
    const db = context.database(`footprint_${label.replace(/\W+/g, '_')}`)
    const [script, args] = withFlags(runtime, WORKER_MAIN, ['run', '--config', NETS.idleTen])
    const w = spawnNode(
      label,
      script,
      args,
      workerEnv({ ...env, MONGO_URI: context.mongo.url, MONGO_DB: db }),
      keep,
      runtime.path,
    )
    return w
  }
  const subjects: Record<string, Child> = {}
  for (const runtime of [nodes.current, nodes.node24]) {
    subjects[`${runtime.key}.shipped`] = idleWorker(`${runtime.key} every minute`, everyMinute, runtime)
    subjects[`${runtime.key}.compressed`] = idleWorker(`${runtime.key} every second`, {}, runtime)
    subjects[`${runtime.key}.bare`] = spawnNode(
      `${runtime.key} idle`,
      '-e',
      ['setInterval(() => {}, 1000)'],
      {},
      undefined,
      runtime.path,
    )
  }
  subjects['node24.image'] = idleWorker('node24 image every minute', everyMinute, nodes.node24Image)
  children.push(...Object.values(subjects))
  for (const [k, w] of Object.entries(subjects))
    if (!k.endsWith('.bare')) await w.waitFor((l) => l.msg === 'elected', 30_000, `an election (${k})`)
  await sleep(5_000)
  const { stats, windowS } = await sampleIdle(subjects)
  return idleResults(stats, windowS)
}

/** Per Node: its bare idle, and each worker's figures with their ratio to it. */
function idleResults(stats: Record<string, IdleStats>, windowS: number): Record<string, IdleResult> {
  const result = (key: string): IdleResult => {
    const bare = stats[`${key}.bare`]!
    const withRatio = (s: IdleStats) => ({ ...s, rssOverNode: sig(s.rssMiB.mean / bare.rssMiB.mean, 3) })
    return {
      windowS,
      clockTicksPerSecond: clockTicks(),
      nodeIdle: bare,
      workerShippedPace: withRatio(stats[`${key}.shipped`]!),
      workerCompressedPace: withRatio(stats[`${key}.compressed`]!),
      ...(stats[`${key}.image`] ? { workerShippedPaceImage: withRatio(stats[`${key}.image`]!) } : {}),
    }
  }
  return { current: result('current'), node24: result('node24') }
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
    ...(idle.workerShippedPaceImage
      ? [
          [
            'RSS, shipped pace, the image’s NODE_OPTIONS and flags (MiB)',
            String(idle.workerShippedPaceImage.rssMiB.mean),
            String(bare.rssMiB.mean),
            `${idle.workerShippedPaceImage.rssOverNode}×`,
          ],
        ]
      : []),
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
