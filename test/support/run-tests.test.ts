/**
 * `npm test` (scripts/run-tests.mjs) runs the failed files of a whole-suite run again only when the run's
 * FerretDB died under them: tried on a small project of its own (a copy of the script, a real FerretDB
 * from test/support/ferretdb-server.ts, and test files that kill it, fail or pass as each case asks).
 */
import { spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { deathsOnPostgres, filesToRunAgain } from '../../scripts/run-tests.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const project = mkdtempSync(join(tmpdir(), 'leasecron-run-tests-'))
afterAll(() => rmSync(project, { recursive: true, force: true }))

const SETUP = `
import { startFerretDb } from ${JSON.stringify(join(repo, 'test/support/ferretdb-server.ts'))}
import { recordDeaths } from ${JSON.stringify(join(repo, 'test/support/deaths-record.ts'))}
let server
export async function setup(project) {
  server = await startFerretDb({
    log: () => undefined,
    warn: () => undefined,
    restartAfterDeath: true,
    backend: process.env.BACKEND ?? 'sqlite',
  })
  project.provide('pid', server.process.pid)
}
export async function teardown() {
  await server.stop()
  recordDeaths(server.deaths)
}
`
/** Each file notes that it ran; KILL=1 makes the first one kill the server once, BREAK=1 the second fail. */
const FILES: Record<string, string> = {
  'kills.test.ts': `
import { appendFileSync, existsSync, writeFileSync } from 'node:fs'
import { inject, it } from 'vitest'
it('uses the server', async () => {
  appendFileSync('ran.log', 'kills\\n')
  if (process.env.KILL !== '1' || existsSync('killed')) return
  writeFileSync('killed', '')
  process.kill(inject('pid'), 'SIGKILL')
  // As a test that kills it mid-call would: the runner's process hears of the death before its teardown
  // stops the server (a death it hears of only after the stop began is not counted as one).
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  if (process.env.KILL_QUIETLY !== '1') throw new Error('the server died under this test')
})`,
  'breaks.test.ts': `
import { appendFileSync } from 'node:fs'
import { expect, it } from 'vitest'
it('holds its own', () => {
  appendFileSync('ran.log', 'breaks\\n')
  expect(process.env.BREAK, 'a failure of its own').not.toBe('1')
})`,
  'passes.test.ts': `
import { appendFileSync } from 'node:fs'
import { it } from 'vitest'
it('passes', () => { appendFileSync('ran.log', 'passes\\n') })`,
}

function setUpProject(): void {
  mkdirSync(join(project, 'scripts'))
  mkdirSync(join(project, 'test'))
  copyFileSync(join(repo, 'scripts/run-tests.mjs'), join(project, 'scripts/run-tests.mjs'))
  symlinkSync(join(repo, 'node_modules'), join(project, 'node_modules'))
  writeFileSync(join(project, 'setup.ts'), SETUP)
  writeFileSync(
    join(project, 'vitest.config.mjs'),
    "export default { test: { include: ['test/**/*.test.ts'], globalSetup: ['setup.ts'], pool: 'forks' } }\n",
  )
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(project, 'test', name), text)
}
setUpProject()

/** Runs the copied script in the project with `env`; its exit code, its output and which files ran. */
function runTests(env: Record<string, string>, args: string[] = []) {
  for (const file of ['ran.log', 'killed']) rmSync(join(project, file), { force: true })
  const child = spawn(process.execPath, ['scripts/run-tests.mjs', ...args], {
    cwd: project,
    env: { ...process.env, ...env, NO_COLOR: '1' },
  })
  let output = ''
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (d) => (output += d))
  return new Promise<{ code: number | null; output: string; ran: string[] }>((resolve) =>
    child.once('close', (code) => {
      const log = join(project, 'ran.log')
      const ran = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').sort() : []
      resolve({ code, output, ran })
    }),
  )
}

describe('npm test after its FerretDB died', () => {
  it('runs only the failed files again, on a fresh server, and passes when they pass', async () => {
    const run = await runTests({ KILL: '1' })
    expect(run.output).toMatch(/1 file\(s\) failed and its FerretDB died 1 time\(s\) during the run/)
    expect(run.output).toMatch(/passed on the second run/)
    expect(run.ran, 'the file that failed ran twice, the others once').toEqual([
      'breaks',
      'kills',
      'kills',
      'passes',
    ])
    expect(run.code, 'a server death would fail the suite for the server, not for the code').toBe(0)
    for (const kept of ['first/report.json', 'first/deaths.json', 'second/report.json'])
      expect(
        existsSync(join(project, '.cache/test-run', kept)),
        `the run's ${kept} the output names is gone`,
      ).toBe(true)
  }, 180_000)

  it('fails when a failed file fails again on the second run', async () => {
    const run = await runTests({ KILL: '1', BREAK: '1' })
    expect(run.output).toMatch(/2 file\(s\) failed/)
    expect(run.output).toMatch(/the second run failed too \(test\/breaks\.test\.ts\)/)
    expect(run.code, 'a failure of the code itself would pass as a server death').toBe(1)
  }, 180_000)

  it('runs nothing again when the server lived, or when the run was focused', async () => {
    const lived = await runTests({ BREAK: '1' })
    expect(lived.code).toBe(1)
    expect(lived.ran, 'a failure without a death ran again').toEqual(['breaks', 'kills', 'passes'])
    const focused = await runTests({ KILL: '1' }, ['test/kills.test.ts'])
    expect(focused.code).toBe(1)
    expect(focused.output).toMatch(/not run again: a focused run/)
    expect(focused.ran).toEqual(['kills'])
  }, 180_000)
})

describe('npm test after its FerretDB died on PostgreSQL', () => {
  it('fails the run loudly and runs nothing again, also when every test passed', async () => {
    const run = await runTests({ KILL: '1', KILL_QUIETLY: '1', BACKEND: 'postgresql' })
    expect(run.output).toMatch(/FAILED: the run's FerretDB on PostgreSQL died 1 time\(s\)/)
    expect(run.ran, 'nothing ran again').toEqual(['breaks', 'kills', 'passes'])
    expect(run.code, 'a death on PostgreSQL passed unnoticed because the tests passed').toBe(1)
    const failing = await runTests({ KILL: '1', BACKEND: 'postgresql' })
    expect(failing.output).not.toMatch(/run again once/)
    expect(failing.ran, 'the failed file ran again after a death on PostgreSQL').toEqual([
      'breaks',
      'kills',
      'passes',
    ])
    expect(failing.code).toBe(1)
  }, 240_000)
})

describe('which files run again', () => {
  const death = [{ pid: 1, code: 2, signal: null }]
  const failed = ['/r/test/a.test.ts']
  it('is none for a passed run, a run whose server lived, a focused run, or a run with no report', () => {
    const base = { exitCode: 1, args: [], deaths: death, failed, reported: true }
    expect(filesToRunAgain({ ...base, exitCode: 0 }).files).toEqual([])
    expect(filesToRunAgain({ ...base, deaths: [] }).why).toMatch(/did not die/)
    expect(filesToRunAgain({ ...base, args: ['x'] }).why).toMatch(/focused/)
    expect(filesToRunAgain({ ...base, reported: false }).why).toMatch(/before its report/)
    expect(filesToRunAgain(base).files).toEqual(failed)
  })

  it('is none when a death was on PostgreSQL, among deaths on SQLite too', () => {
    const base = { exitCode: 1, args: [], failed, reported: true }
    const deaths = [
      { pid: 1, code: 2, signal: null, backend: 'sqlite' },
      { pid: 2, code: null, signal: 'SIGKILL', backend: 'postgresql' },
    ]
    expect(filesToRunAgain({ ...base, deaths }).files).toEqual([])
    expect(filesToRunAgain({ ...base, deaths }).why).toMatch(/died on PostgreSQL/)
    expect(deathsOnPostgres(deaths).map((d) => d.pid)).toEqual([2])
    expect(filesToRunAgain({ ...base, deaths: deaths.slice(0, 1) }).files, 'a SQLite death').toEqual(failed)
  })
})
