/**
 * `npm run bench [-- scenario…]`: the benchmark suite. Builds dist/ (`npm run build`), starts the tests'
 * Mongo (`startTestMongo()`: MONGO_URL, else mongodb-memory-server, else FerretDB), runs the named
 * scenarios — all six by default, in the order replicas, takeover, store-load, footprint, agenda, budget — each
 * writing `bench/results/<scenario>.json`, then renders `docs/benchmarks.md` and its SVG charts from
 * every result present. Each run uses fresh databases, dropped at the end.
 *
 * A script, not a test: it prints tables and writes JSON, and never fails on a number. It exits 1 only
 * when a scenario could not run. `LEASECRON_BENCH_SKIP_BUILD=1` reuses an existing dist/.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { startTestMongo } from '../test/support/mongo-server.js'
import { renderDocs } from './render.js'
import { runAgenda } from './scenarios/agenda.js'
import { runBudget } from './scenarios/budget.js'
import { runFootprint } from './scenarios/footprint.js'
import { runReplicas } from './scenarios/replicas.js'
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
}
const ALIASES: Record<string, string> = { store: 'store-load', storeload: 'store-load', load: 'store-load' }

async function main(): Promise<number> {
  const asked = process.argv.slice(2).map((a) => ALIASES[a] ?? a)
  const unknown = asked.filter((a) => !(a in SCENARIOS))
  if (unknown.length > 0) {
    console.error(
      `bench: unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`,
    )
    return 64
  }
  const chosen = asked.length > 0 ? [...new Set(asked)] : Object.keys(SCENARIOS)
  const command =
    process.env.npm_lifecycle_event === 'bench'
      ? `npm run bench${asked.length ? ` -- ${asked.join(' ')}` : ''}`
      : `node --import tsx bench/run.ts ${asked.join(' ')}`.trim()
  const suiteStarted = Date.now()
  if (process.env.LEASECRON_BENCH_SKIP_BUILD !== '1') {
    console.log('bench: npm run build')
    execFileSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] })
  }
  const server = await startTestMongo()
  console.log(`bench: Mongo is ${server.description}`)
  const databases: string[] = []
  const context: BenchContext = {
    mongo: { url: server.url, kind: server.kind, version: server.version, description: server.description },
    command,
    database(label) {
      const name = `bench_${label}_${randomBytes(3).toString('hex')}`.slice(0, 60)
      databases.push(name)
      return name
    },
  }
  const durations: Record<string, number> = {}
  const failed: string[] = []
  const onSignal = () => {
    void stopAll().then(() => server.stop().finally(() => process.exit(130)))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    for (const name of chosen) {
      const started = Date.now()
      console.log(`\nbench: scenario ${name}`)
      try {
        await SCENARIOS[name]!(context)
      } catch (error) {
        failed.push(name)
        console.error(
          `bench: scenario ${name} failed: ${error instanceof Error ? error.stack : String(error)}`,
        )
      } finally {
        await stopAll()
      }
      durations[name] = sig((Date.now() - started) / 1000)
      console.log(`bench: ${name} took ${durations[name]} s`)
    }
  } finally {
    await stopAll()
    const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 5_000 })
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
  const totalS = sig((Date.now() - suiteStarted) / 1000)
  if (asked.length === 0) {
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
          scenarioS: durations,
          failed,
          machine: machine(context.mongo),
        },
        null,
        2,
      )}\n`,
    )
  }
  const docs = await renderDocs()
  console.log(
    `\nbench: ${chosen.join(', ')} in ${totalS} s (${(totalS / 60).toFixed(1)} min); rendered ${docs}`,
  )
  if (failed.length) console.error(`bench: failed: ${failed.join(', ')}`)
  return failed.length ? 1 : 0
}

process.exitCode = await main()
