/**
 * `npx leasecron run &` stops with its parent: started through `npm exec` (what `npx` runs) in a project
 * that has leasecron installed, the worker is npm's grandchild under `sh -c`. A SIGTERM to npm (`kill %1`)
 * reaches only that shell, which exits without passing it on, so the worker must notice its parent went
 * (src/cli/until-stopped.ts) and stop as a signal would: release its leases, exit. SIGINT to the process
 * group (Ctrl-C, `kill -INT %1` under job control) reaches the worker itself. Real processes, real signals,
 * the run's real Mongo; Linux (/proc) to tell a process that is gone from one that runs.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { mongoServer, useTestDatabase } from '../support/mongo.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const dir = mkdtempSync(join(tmpdir(), 'leasecron-run-stop-'))
const started: number[] = []
const database = await useTestDatabase('run_stop')
// A released lease has its expiry at the epoch: one found so was released, not left to expire in its TTL.
const STOP_BOUND_MS = 20_000

beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
})
afterAll(() => {
  // A worker a failed test left running is stopped (only the ones these tests started).
  for (const pid of started) if (!gone(pid)) process.kill(pid, 'SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

/** Whether `pid` has exited: no such process, or a zombie its new parent has not reaped yet. */
function gone(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true
  } catch {
    return true
  }
}

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// A project with leasecron installed: its bin links to this checkout's build, as npm would link it.
const project = join(dir, 'project')
mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true })
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true }))
symlinkSync(ROOT, join(project, 'node_modules', 'leasecron'))
symlinkSync(
  join('..', 'leasecron', 'dist', 'bundle', 'leasecron.js'),
  join(project, 'node_modules', '.bin', 'leasecron'),
)

interface Running {
  npm: ChildProcess
  /** The worker's own pid, as its first log line gives it (npm's grandchild). */
  pid: number
  output: () => string
}

/** `npm exec -- leasecron run` on the test Mongo, once the worker holds the sweeper's lease. */
async function startThroughNpm(db: string, options: { detached: boolean }): Promise<Running> {
  const npm = spawn('npm', ['exec', '--offline', '--', 'leasecron', 'run'], {
    cwd: project,
    detached: options.detached,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      npm_config_update_notifier: 'false',
      MONGO_URI: mongoServer().url,
      MONGO_DB: db,
      PORT: '0',
      LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let text = ''
  npm.stdout!.setEncoding('utf8').on('data', (c: string) => (text += c))
  npm.stderr!.setEncoding('utf8').on('data', (c: string) => (text += c))
  await until(
    `the worker was not elected for merge-gate-sweeper (${text.slice(-2000)})`,
    () => /"lease":"merge-gate-sweeper".*"msg":"elected"/.test(text),
    60_000,
  )
  const pid = Number(/"pid":(\d+)/.exec(text)?.[1])
  started.push(pid)
  expect(pid, 'the worker is npm’s grandchild, not npm').not.toBe(npm.pid)
  expect(gone(pid), 'the worker was not running').toBe(false)
  return { npm, pid, output: () => text }
}

/** Gone within the bound, having released the sweeper's lease (not left it to expire in its 30 s TTL). */
async function expectStoppedAndReleased(worker: Running, db: string, why: string): Promise<void> {
  const sentAt = Date.now()
  await until(
    `the worker (pid ${worker.pid}) still ran after ${why}:\n${worker.output().slice(-2000)}`,
    () => gone(worker.pid),
    STOP_BOUND_MS,
  )
  const stopMs = Date.now() - sentAt
  const lease = await database.client
    .db(db)
    .collection('leases')
    .findOne({ _id: 'merge-gate-sweeper' as never })
  expect(
    lease?.expiresAt?.getTime(),
    `after ${why} the lease was left held: the next replica waits out its TTL`,
  ).toBe(0)
  expect(worker.output(), `the worker did not log its release after ${why}`).toMatch(/"msg":"released"/)
  expect(stopMs, 'the stop took longer than a person would wait').toBeLessThan(STOP_BOUND_MS)
}

describe('leasecron run, started through npm exec (npx)', () => {
  it('stops when npm gets SIGTERM (kill %1: npm’s shell exits, the worker follows) and releases its lease', async () => {
    const db = `${database.db.databaseName}_term`
    const worker = await startThroughNpm(db, { detached: false })
    worker.npm.kill('SIGTERM')
    await expectStoppedAndReleased(worker, db, 'SIGTERM to npm')
    expect(worker.output()).toMatch(/"reason":"(parent exited|SIGTERM)","msg":"stopping"/)
    await database.client.db(db).dropDatabase()
  }, 120_000)

  it('stops on SIGINT to its process group (Ctrl-C, kill -INT %1 under job control) and releases its lease', async () => {
    const db = `${database.db.databaseName}_int`
    const worker = await startThroughNpm(db, { detached: true })
    process.kill(-worker.npm.pid!, 'SIGINT')
    await expectStoppedAndReleased(worker, db, 'SIGINT to the process group')
    expect(worker.output()).toMatch(/"reason":"SIGINT","msg":"stopping"/)
    await database.client.db(db).dropDatabase()
  }, 120_000)
})
