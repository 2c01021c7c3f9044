// Heap growth over a term (issue 39): does a worker that keeps its leases keep something of every pass and
// store call? One `leasecron run` worker per build (`--root`, side by side in the same minutes, on the Node
// running this script, in-memory store) with N do-nothing nets on an every-second schedule, so a few minutes
// hold as many passes as a day of a handful of every-minute nets, and one probe net every 15 s that runs a
// full collection (`--expose-gc`) and logs the live heap. Prints, per build, the live heap after the warm-up
// and at the end and the growth per thousand passes (the slope over every probe after the warm-up); with
// `--json`, writes them with the command.
//
// What grew before (Node 20): every `AbortSignal.any` derived from a term's signal stayed on it until the term
// ended (src/lease/follow-abort.ts). Not a benchmark of speed: the passes do nothing.
//
// Each worker keeps LEASECRON_RUN_HISTORY=10 runs per net (`--run-history`): the in-memory ledger keeps the
// newest runs of each net, 1,000 by default, and would otherwise grow by design for the first 1,000 passes
// of every net.
//
//   node bench/term-heap-growth.mjs [--nets 50] [--minutes 6] [--warmup 60] [--run-history 10]
//                                   [--root <dir> ...] [--json <file>]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { probeSandbox, repoRoot, stopAll, waitForLines, writeNetsModule } from './rss-probe-kit.mjs'

const PROBE_EVERY_S = 15

function options(argv) {
  const o = { nets: 50, minutes: 6, warmupS: 60, runHistory: 10, roots: [], json: undefined }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--nets') o.nets = Number(argv[++i])
    else if (a === '--minutes') o.minutes = Number(argv[++i])
    else if (a === '--warmup') o.warmupS = Number(argv[++i])
    else if (a === '--run-history') o.runHistory = Number(argv[++i])
    else if (a === '--root') o.roots.push(argv[++i])
    else if (a === '--json') o.json = argv[++i]
    else throw new Error(`term-heap-growth: unknown argument ${a}`)
  }
  if (!(o.nets >= 1 && o.minutes > 0 && o.warmupS >= 0 && o.runHistory >= 1))
    throw new Error('term-heap-growth: --nets and --run-history must be ≥ 1, --minutes > 0, --warmup ≥ 0')
  if (o.roots.length === 0) o.roots.push(repoRoot)
  return o
}

/** The nets module of one build: `count` every-second nets and the heap probe. */
function netsModule(dir, root, count) {
  return writeNetsModule(
    join(dir, 'nets.mjs'),
    root,
    `for (let i = 1; i <= ${count}; i++) net(\`tick-\${String(i).padStart(4, '0')}\`, '* * * * * *', async () => {})
net('heap-probe', '*/${PROBE_EVERY_S} * * * * *', async (context) => {
  globalThis.gc()
  context.log.info({ heapUsed: process.memoryUsage().heapUsed }, 'heap probe')
})`,
  )
}

/** One worker on `root`'s bundle; `probes` fills with [ms since start, heapUsed] pairs. */
function worker(root, dir, count, base, runHistory) {
  const probes = []
  const startedAt = Date.now()
  const args = [
    '--expose-gc',
    join(root, 'dist/bundle/leasecron.js'),
    'run',
    '--config',
    netsModule(dir, root, count),
  ]
  const test = (line) => {
    if (!line.includes('"heap probe"')) return false
    probes.push([Date.now() - startedAt, JSON.parse(line).heapUsed])
    return true
  }
  const env = { ...base, PORT: '0', LOG_LEVEL: 'info', LEASECRON_RUN_HISTORY: String(runHistory) }
  const { child, done } = waitForLines({
    node: process.execPath,
    args,
    env,
    test,
    what: root,
    timeoutMs: 600_000,
  })
  done.catch(() => undefined)
  return { root, child, probes, ready: done }
}

const mibOf = (bytes) => Math.round((bytes / 2 ** 20) * 100) / 100

/** Least-squares slope of `points` ([x, y] pairs): y per x. */
function slope(points) {
  const n = points.length
  const mx = points.reduce((a, [x]) => a + x, 0) / n
  const my = points.reduce((a, [, y]) => a + y, 0) / n
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0)
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0)
  return sxy / sxx
}

/**
 * A build's figures: the live heap after the warm-up and at the end, and its growth per 1,000 passes as the
 * least-squares slope of every probe after the warm-up (the heap saws up and down as the holder prunes each
 * net's runs, so two probes alone say more about where in a saw they fell than about growth).
 */
function figures(w, o) {
  const after = w.probes.filter(([ms]) => ms >= o.warmupS * 1000)
  if (after.length < 3) throw new Error(`term-heap-growth: ${w.root} logged ${w.probes.length} probes`)
  const [t0, h0] = after[0]
  const [t1, h1] = after[after.length - 1]
  const perPass = slope(after.map(([ms, heap]) => [(ms / 1000) * o.nets, heap]))
  return {
    root: w.root === repoRoot ? '.' : w.root,
    heapAfterWarmupMiB: mibOf(h0),
    heapAtEndMiB: mibOf(h1),
    overS: Math.round((t1 - t0) / 1000),
    passes: Math.round(((t1 - t0) / 1000) * o.nets),
    kibPer1000Passes: Math.round((perPass / 1024) * 1000 * 10) / 10,
  }
}

async function main() {
  const o = options(process.argv.slice(2))
  const dir = mkdtempSync(join(tmpdir(), 'term-heap-growth-'))
  const forge = await probeSandbox('term-heap-growth')
  const workers = []
  try {
    for (const [i, root] of o.roots.entries()) {
      const rootDir = join(dir, String(i))
      mkdirSync(rootDir)
      workers.push(worker(root, rootDir, o.nets, forge.env, o.runHistory))
    }
    await Promise.all(workers.map((w) => w.ready))
    await new Promise((r) => setTimeout(r, o.minutes * 60_000))
    const rows = workers.map((w) => figures(w, o))
    console.table(rows)
    if (o.json) {
      const args = process.argv.slice(2).map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a))
      const result = {
        command: `node bench/term-heap-growth.mjs ${args.join(' ')}`,
        node: process.version,
        generatedAt: new Date().toISOString(),
        nets: o.nets,
        runHistory: o.runHistory,
        rows,
        probes: Object.fromEntries(workers.map((w) => [w.root === repoRoot ? '.' : w.root, w.probes])),
      }
      writeFileSync(o.json, `${JSON.stringify(result, null, 2)}\n`)
    }
  } finally {
    await stopAll(workers.map((w) => w.child))
    forge.child.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
