/**
 * `leasecron once` on the built worker and the run's real Mongo: a real term for one slot, however many
 * triggers deliver it.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { MongoRunLedger, MongoStore } from '../../src/index.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { mongoServer } from '../support/mongo.js'
import { MAIN, startWorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/once-nets.mjs', import.meta.url))
let sandbox: SandboxForge
let client: MongoClient
let databases = 0

beforeAll(async () => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
  sandbox = await startSandboxForge({ generate: { repos: 1, pullsPerRepo: 1, issuesPerRepo: 1, seed: 5 } })
  client = await new MongoClient(mongoServer().url).connect()
})
afterAll(async () => {
  await sandbox?.close()
  await client?.close()
})

function env(db: string, extra: Record<string, string> = {}) {
  return {
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_INSTALLATION_ID: String(sandbox.installationId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_API_URL: sandbox.url,
    MONGO_URI: mongoServer().url,
    MONGO_DB: db,
    ...extra,
  }
}

function freshDb(): string {
  return `once_${Date.now().toString(36)}_${++databases}`
}

function once(args: string[], environment: Record<string, string>) {
  return startWorkerProcess(['once', 'once-net', ...args, '--config', NETS], environment)
}

/** The one JSON object `once --json` printed. */
function resultOf(w: ReturnType<typeof once>): Record<string, unknown> | undefined {
  return w.lines.find((l) => typeof l.outcome === 'string') as Record<string, unknown> | undefined
}

describe('leasecron once', () => {
  it('run by five processes at once for one slot, runs that slot exactly once', async () => {
    const db = freshDb()
    sandbox.resetStats()
    const workers = Array.from({ length: 5 }, () =>
      once(['--slot', '2026-09-30T15:05:03Z', '--json'], env(db)),
    )
    const exits = await Promise.all(workers.map((w) => w.exited))
    expect(
      exits.map((e) => e.code),
      'a trigger of a slot exited non-zero',
    ).toEqual([0, 0, 0, 0, 0])
    const results = workers.map(resultOf)
    const outcomes = results.map((r) => r?.outcome)
    expect(
      outcomes.filter((o) => o === 'ran'),
      `outcomes: ${outcomes.join(', ')}`,
    ).toHaveLength(1)
    expect(outcomes.every((o) => o === 'ran' || o === 'slot-taken' || o === 'held')).toBe(true)
    expect(new Set(results.map((r) => r?.slot)), 'the slot was not normalized to the schedule').toEqual(
      new Set(['2026-09-30T15:05:00.000Z']),
    )
    const starts = workers.flatMap((w) => w.lines.filter((l) => l.event === 'pass-start'))
    expect(starts, 'more than one process ran a pass for the slot').toHaveLength(1)
    expect(
      countRequests(sandbox.stats(), { route: 'GET /rate_limit' }),
      'the forge saw the slot run twice',
    ).toBe(1)
    const ran = results.find((r) => r?.outcome === 'ran')!
    const record = await new MongoRunLedger(client.db(db)).get('once-net', new Date('2026-09-30T15:05:00Z'))
    expect(record).toMatchObject({ owner: ran.owner, fence: ran.fence, outcome: 'ok' })
    expect(record?.requests?.['once-net'], 'the pass’s forge request was not recorded').toBe(1)
  }, 60_000)

  it('with --json prints only its answer on stdout, one JSON line a trigger can pipe, and logs to stderr', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [MAIN, 'once', 'once-net', '--json', '--config', NETS],
      { env: { PATH: process.env.PATH ?? '', ...env(freshDb()) }, timeout: 30_000 },
    )
    const lines = stdout.trim().split('\n')
    expect(lines, 'log lines were mixed into the answer on stdout').toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({ net: 'once-net', outcome: 'ran' })
    expect(stderr, 'the log went nowhere').toMatch(/"msg":"elected"/)
  }, 60_000)

  it('says slot-taken for a slot that already ran, and prints one readable line without --json', async () => {
    const db = freshDb()
    const first = once(['--slot', '2026-09-30T16:00:00Z'], env(db))
    expect((await first.exited).code).toBe(0)
    expect(first.text.join('\n')).toMatch(/once-net: ran slot 2026-09-30T16:00:00.000Z as \S+ \(fence \d+\)/)
    const again = once(['--slot', '2026-09-30T16:00:04.999Z', '--json'], env(db))
    expect((await again.exited).code).toBe(0)
    expect(resultOf(again)).toMatchObject({ outcome: 'slot-taken', slot: '2026-09-30T16:00:00.000Z' })
  }, 60_000)

  it('says held, naming the holder, when another owner holds the lease, and runs nothing', async () => {
    const db = freshDb()
    const store = new MongoStore(client.db(db))
    expect(await store.acquire('once-net', 'someone-else-0123456789ab', new Date(), 60_000)).toBeTruthy()
    const w = once(['--json'], env(db))
    expect((await w.exited).code).toBe(0)
    expect(resultOf(w)).toMatchObject({ outcome: 'held', holder: 'someone-else-0123456789ab' })
    expect(
      w.lines.filter((l) => l.event === 'pass-start'),
      'a pass ran without the lease',
    ).toEqual([])
  }, 60_000)

  it('refuses a --slot that is not an instant with exit 64, showing the expected form', async () => {
    const w = once(['--slot', 'tomorrow'], env(freshDb()))
    expect((await w.exited).code).toBe(64)
    expect(w.text.join('\n')).toMatch(
      /--slot: expected an ISO 8601 instant with a time zone \(e\.g\. 2026-09-30T15:05:00Z\) or "auto"; got "tomorrow"/,
    )
  }, 30_000)

  it('on SIGTERM aborts the pass, records it aborted and releases the lease before exiting', async () => {
    const db = freshDb()
    const w = once(['--slot', '2026-09-30T17:00:00Z', '--json'], env(db, { ONCE_PASS_MS: '60000' }))
    await w.waitFor((l) => l.event === 'pass-start', 20_000, 'the pass starting')
    w.child.kill('SIGTERM')
    const { code } = await w.exited
    expect(code, 'an interrupted once should exit 130').toBe(130)
    expect(resultOf(w)).toMatchObject({ outcome: 'aborted' })
    const record = await new MongoRunLedger(client.db(db)).get('once-net', new Date('2026-09-30T17:00:00Z'))
    expect(record?.outcome, 'the aborted pass was not recorded as aborted').toBe('aborted')
    const leases = await new MongoStore(client.db(db)).list()
    expect(
      leases.filter((l) => l.name === 'once-net' && l.owner && (l.expiresAt?.getTime() ?? 0) > Date.now()),
      'a killed once left its lease held for the whole TTL',
    ).toEqual([])
  }, 60_000)
})
