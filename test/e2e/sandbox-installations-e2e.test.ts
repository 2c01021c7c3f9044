/**
 * `leasecron sandbox --installations 2`, as a user tries `GITHUB_INSTALLATION_IDS=all` locally: the built
 * CLI in a process of its own serves two installations (each its organization's repositories), writes an
 * env file naming `all`, and seeds gating runs naming their installation into the test Mongo; `once` of
 * the second installation's sweeper, with that env file, settles that installation's dead reviews only.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { EXIT } from '../../src/cli/exit-codes.js'
import { type NodeProcess, spawnNodeProcess } from '../support/node-process.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { MAIN } from '../support/worker-process.js'

const database = await useTestDatabase('sandbox-installations')
const dir = mkdtempSync(join(tmpdir(), 'leasecron-sandbox-installations-'))
const mongoEnv = { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName }
let sandbox: NodeProcess | undefined
beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
})
afterAll(async () => {
  await sandbox?.stop('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
})

async function cli(args: string[], env: Record<string, string>) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

/** Waits for `path` to exist, failing with what the sandbox printed after `ms`. */
async function untilWritten(path: string, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !existsSync(path); ) {
    if (Date.now() > deadline || !sandbox?.alive())
      throw new Error(`the sandbox wrote no env file within ${ms} ms: ${sandbox?.text.join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('leasecron sandbox --installations N', () => {
  it('refuses a count that is not a whole number from 1 to 20', async () => {
    for (const bad of ['0', '21', 'two']) {
      const run = await cli(['sandbox', '--installations', bad], { LOG_LEVEL: 'silent' })
      expect(run.code, `--installations ${bad} started a sandbox`).toBe(EXIT.usage)
      expect(run.err).toContain('--installations expected a whole number from 1 to 20')
    }
  })

  it('serves N installations, names `all` in its env file and seeds runs each installation’s sweeper settles', async () => {
    const envFile = join(dir, 'sandbox.env')
    sandbox = spawnNodeProcess(MAIN, ['sandbox', '--installations', '2', '--env-out', envFile], {
      ...mongoEnv,
      LOG_LEVEL: 'silent',
    })
    await untilWritten(envFile, 30_000)
    const variables = Object.fromEntries(
      readFileSync(envFile, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
    )
    expect(variables).toMatchObject({ GITHUB_INSTALLATION_IDS: 'all' })
    expect(variables, 'the env file still pins one installation').not.toHaveProperty('GITHUB_INSTALLATION_ID')
    expect(sandbox.text.join('\n')).toContain('installation 42420002: sandbox-org-2')

    const gateRuns = database.db.collection('gate_runs')
    const second = { installation: 42420002, settledAt: null }
    const unsettledBefore = await gateRuns.countDocuments(second)
    expect(unsettledBefore, 'no gating runs name the second installation').toBeGreaterThan(0)
    const once = await cli(['once', 'merge-gate-sweeper:42420002', '--now', '--json'], {
      ...variables,
      ...mongoEnv,
      LOG_LEVEL: 'silent',
    })
    expect(once.code, once.err).toBe(EXIT.ok)
    expect(JSON.parse(once.out)).toMatchObject({ net: 'merge-gate-sweeper:42420002', outcome: 'ran' })
    expect(
      await gateRuns.countDocuments(second),
      'the second installation’s sweeper settled none of its runs',
    ).toBeLessThan(unsettledBefore)
    expect(
      await gateRuns.countDocuments({ installation: 42420001, settledAt: { $ne: null } }),
      'the second installation’s sweeper settled the first one’s runs',
    ).toBe(0)
  })
})
