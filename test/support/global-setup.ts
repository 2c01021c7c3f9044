/**
 * Vitest global setup: starts the one Mongo server of the run and tells every test file where it is.
 * It does not fail the run when no server can be had: the Mongo tests fail then, each with the reason
 * and how to provide MONGO_URL, while the others still run.
 */
import { execFileSync } from 'node:child_process'
import type { TestProject } from 'vitest/node'
import { recordDeaths } from './deaths-record.js'
import { describeCrash, type FerretDbDeath } from './ferretdb-server.js'
import { startTestMongo, type TestMongoServer } from './mongo-server.js'

declare module 'vitest' {
  export interface ProvidedContext {
    mongo:
      | {
          url: string
          kind: string
          version: string
          isFerretDb: boolean
          /** The storage of the FerretDB the run started (`postgresql`, `sqlite`); absent for another server. */
          backend?: string
          description: string
        }
      | { error: string }
    /** Why dist/ could not be built, when it could not (end-to-end tests then fail with it). */
    buildError: string | undefined
    /** The helm binary tools/helm/build.sh made, or why there is none (the chart's test fails with it). */
    helm: { path: string } | { error: string }
  }
}

let server: TestMongoServer | undefined

/**
 * Builds helm for the chart's test once (tools/helm/build.sh; a few minutes the first time, then nothing),
 * before any test file runs: built beside the running files, it would take their CPU.
 */
function prepareHelm(project: TestProject): void {
  try {
    const path = execFileSync('bash', ['tools/helm/build.sh'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim()
    project.provide('helm', { path })
  } catch (error) {
    const message = String((error as { message?: string }).message ?? error).slice(0, 2000)
    console.log(`helm: tools/helm/build.sh failed; the Helm chart's test will fail: ${message}`)
    project.provide('helm', { error: message })
  }
}

export async function setup(project: TestProject): Promise<void> {
  // End-to-end tests run the built worker; build it once for the whole run.
  try {
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: ['ignore', 'ignore', 'pipe'] })
    project.provide('buildError', undefined)
  } catch (error) {
    const message = String((error as { stderr?: Buffer }).stderr ?? error).slice(0, 4000)
    console.log(`build: npm run build failed; end-to-end tests will fail: ${message}`)
    project.provide('buildError', message)
  }
  prepareHelm(project)
  try {
    // A FerretDB that dies mid-run is said on stderr and started again on its data, so the files after
    // the death still have a server (test/support/ferretdb-server.ts).
    server = await startTestMongo({ restartAfterDeath: true })
    console.log(`mongo: tests run against ${server.description}`)
    project.provide('mongo', {
      url: server.url,
      kind: server.kind,
      version: server.version,
      isFerretDb: server.isFerretDb,
      ...(server.backend ? { backend: server.backend } : {}),
      description: server.description,
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    console.log(`mongo: NO SERVER — Mongo tests will fail: ${message}`)
    project.provide('mongo', { error: message })
  }
}

export async function teardown(): Promise<void> {
  await server?.stop()
  const deaths = server?.deaths ?? []
  recordDeaths(deaths)
  // Said again at the end, where a reader of a failed run looks first (a CI log is often read from its tail).
  if (deaths.length > 0) process.stderr.write(describeDeaths(deaths))
}

/** The deaths of a run, each with its crash (when it printed one) and its last lines. */
function describeDeaths(deaths: readonly FerretDbDeath[]): string {
  const each = deaths.map(
    (d, i) =>
      `mongo: death ${i + 1} (on ${d.backend}): pid ${d.pid}, exit code ${d.code}, signal ${d.signal}, ` +
      `${d.restarted ? 'restarted' : 'NOT restarted'}. ${describeCrash(d)}Its last 20 output lines:\n` +
      d.lastLines
        .slice(-20)
        .map((line) => `  ${line}`)
        .join('\n'),
  )
  return (
    `${each.join('\n')}\nmongo: the run's FerretDB died ${deaths.length} time(s) during this run; ` +
    'tests that used it then failed for that, not for their code.\n'
  )
}
