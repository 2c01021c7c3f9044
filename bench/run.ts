/**
 * `npm run bench [-- scenario…]`: the benchmark suite. Builds dist/ (`npm run build`), starts the tests'
 * Mongo (`startTestMongo()`: MONGO_URL, else mongodb-memory-server, else FerretDB), runs the named
 * scenarios — all six by default, in the order replicas, takeover, store-load, footprint, agenda, budget (`peers`
 * only when named: it runs ~22 min on its own Redis, PostgreSQL and FerretDB; `peers-thousand` too, ~45 min of
 * 1,000 every-minute jobs per system, one system at a time; `installations` too, ~10 min) — each
 * writing `bench/results/<scenario>.json`, then renders `docs/benchmarks.md` and its SVG charts from
 * every result present. Each run uses fresh databases, dropped at the end.
 *
 * `npm run bench -- render` runs nothing: it only re-renders the docs from the committed results (no build,
 * no Mongo).
 *
 * A script, not a test: it prints tables and writes JSON, and never fails on a number. It exits 1 only
 * when a scenario could not run. `LEASECRON_BENCH_SKIP_BUILD=1` reuses an existing dist/.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startTestMongo, type TestMongoServer } from '../test/support/mongo-server.js'
import { renderDocs } from './render.js'
import { runAgenda } from './scenarios/agenda.js'
import { runBudget } from './scenarios/budget.js'
import { runFootprint } from './scenarios/footprint.js'
import { runInstallations } from './scenarios/installations.js'
import { runPeers } from './scenarios/peers.js'
import { runPeersThousand } from './scenarios/peers-thousand.js'
import { runReplicas } from './scenarios/replicas.js'
import { runStandInLoad } from './scenarios/stand-in-load.js'
import { runStandInPool } from './scenarios/stand-in-pool.js'
import { runStoreLoad } from './scenarios/store-load.js'
import { runTakeover } from './scenarios/takeover.js'
import { type BenchContext, gitCommit, machine, repoRoot, resultsDir, sig, stopAll } from './support.js'

const SCENARIOS: Record<string, (context: BenchContext) => Promise<string>> = {
  replicas: runReplicas,
  takeover: runTakeover,
  'store-load': runStoreLoad,
  footprint: runFootprint,
  agenda: runAgenda,
  budget: runBudget,
  peers: runPeers,
  'peers-thousand': runPeersThousand,
  installations: runInstallations,
  'stand-in-load': runStandInLoad,
  'stand-in-pool': runStandInPool,
}
/**
 * Run only when named: `peers` takes ~22 min and starts its own Redis, PostgreSQL and FerretDB;
 * `peers-thousand` ~45 min: N every-minute jobs (1,000; BENCH_PEERS_JOBS) on three processes of each system,
 * one system at a time, each on a fresh Redis, PostgreSQL or FerretDB-on-PostgreSQL (issue #39);
 * `installations` ~10 min of up to 11 worker processes (N installations × R replicas); `stand-in-load`
 * 10 min of 1,000 leases' renewals, claims and finishes (issue 37); `stand-in-pool` a few minutes on a
 * FerretDB and PostgreSQL cluster of its own (issue 37).
 */
const OPT_IN = new Set(['peers', 'peers-thousand', 'installations', 'stand-in-load', 'stand-in-pool'])
const ALIASES: Record<string, string> = { store: 'store-load', storeload: 'store-load', load: 'store-load' }

/** The scenarios to run and the command line to record, or the exit code of a bad command line. */
function parseArgs(args: string[]): { chosen: string[]; command: string } | number {
  const asked = args.map((a) => ALIASES[a] ?? a)
  const unknown = asked.filter((a) => !(a in SCENARIOS))
  if (unknown.length > 0) {
    console.error(
      `bench: unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')} (or render alone)`,
    )
    return 64
  }
  const chosen = asked.length > 0 ? [...new Set(asked)] : Object.keys(SCENARIOS).filter((s) => !OPT_IN.has(s))
  const command =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${asked.length ? ` -- ${asked.join(' ')}` : ''}`
      : `node --import tsx bench/run.ts ${asked.join(' ')}`.trim()
  return { chosen, command }
}

function buildDist(): void {
  if (process.env.LEASECRON_BENCH_SKIP_BUILD === '1') return
  console.log('bench: npm run build')
  execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] })
}

/** The scenarios' context on `server`; every database it names is recorded in `databases` for the drop. */
function benchContext(server: TestMongoServer, command: string, databases: string[]): BenchContext {
  return {
    mongo: { url: server.url, kind: server.kind, version: server.version, description: server.description },
    command,
    database(label) {
      const name = `bench_${label}_${randomBytes(3).toString('hex')}`.slice(0, 60)
      databases.push(name)
      return name
    },
  }
}

/** Runs each scenario in turn; one that throws is logged and named in `failed`, and the next still runs. */
async function runScenarios(chosen: string[], context: BenchContext) {
  const durations: Record<string, number> = {}
  const failed: string[] = []
  for (const name of chosen) {
    const started = Date.now()
    console.log(`\nbench: scenario ${name}`)
    try {
      await SCENARIOS[name]!(context)
    } catch (error) {
      failed.push(name)
      console.error(`bench: scenario ${name} failed: ${error instanceof Error ? error.stack : String(error)}`)
    } finally {
      await stopAll()
    }
    durations[name] = sig((Date.now() - started) / 1000)
    console.log(`bench: ${name} took ${durations[name]} s`)
  }
  return { durations, failed }
}

/**
 * Drops the run's databases and stops the server; a drop that fails is left (a temporary server goes
 * anyway). Each drop is bounded: a stalled stand-in must not keep a finished run from exiting.
 */
async function tearDown(server: TestMongoServer, databases: string[]): Promise<void> {
  await stopAll()
  const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 30_000 })
  try {
    await client.connect()
    for (const db of databases)
      await client
        .db(db)
        .dropDatabase()
        .catch(() => undefined)
  } catch {
    // The databases go with a temporary server anyway.
  } finally {
    await client.close()
  }
  await server.stop()
}

/** bench/results/suite.json: the full suite's duration per scenario, for the docs' header line. */
async function writeSuite(
  command: string,
  totalS: number,
  run: { durations: Record<string, number>; failed: string[] },
  mongo: BenchContext['mongo'],
): Promise<void> {
  await mkdir(resultsDir, { recursive: true })
  await writeFile(
    join(resultsDir, 'suite.json'),
    `${JSON.stringify(
      {
        benchmark: 'leasecron bench suite',
        generatedAt: new Date().toISOString(),
        command,
        commit: gitCommit(),
        totalS,
        scenarioS: run.durations,
        failed: run.failed,
        machine: machine(mongo),
      },
      null,
      2,
    )}\n`,
  )
}

async function main(): Promise<number> {
  const args = process.argv.slice(2)
  if (args.length === 1 && args[0] === 'render') {
    console.log(`bench: rendered ${await renderDocs()} from the committed results`)
    return 0
  }
  const parsed = parseArgs(args)
  if (typeof parsed === 'number') return parsed
  const { chosen, command } = parsed
  const suiteStarted = Date.now()
  buildDist()
  const server = await startTestMongo()
  console.log(`bench: Mongo is ${server.description}`)
  const databases: string[] = []
  const context = benchContext(server, command, databases)
  const onSignal = () => {
    void stopAll().then(() => server.stop().finally(() => process.exit(130)))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  let run: Awaited<ReturnType<typeof runScenarios>>
  try {
    run = await runScenarios(chosen, context)
  } finally {
    await tearDown(server, databases)
  }
  const totalS = sig((Date.now() - suiteStarted) / 1000)
  if (args.length === 0) await writeSuite(command, totalS, run, context.mongo)
  const docs = await renderDocs()
  console.log(
    `\nbench: ${chosen.join(', ')} in ${totalS} s (${(totalS / 60).toFixed(1)} min); rendered ${docs}`,
  )
  if (run.failed.length) console.error(`bench: failed: ${run.failed.join(', ')}`)
  return run.failed.length ? 1 : 0
}

process.exitCode = await main()
