/**
 * Both built-in nets through the built worker: three processes share the run's Mongo and one sandbox
 * forge. Each net's forge requests come from one process only, and every dead review gets exactly one
 * failure status however many replicas run.
 */
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest'
import { planDemoGatingRuns, seedDemoGatingRuns } from '../../src/nets/demo-seed.js'
import { MongoGateRunStore } from '../../src/nets.js'
import { generateSandboxFixture, type SandboxForge, startSandboxForge } from '../../src/sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

let sandbox: SandboxForge
let client: MongoClient
const running: WorkerProcess[] = []

afterAll(async () => {
  for (const w of running) w.child.kill('SIGKILL')
  await sandbox?.close()
  await client?.close()
})

describe('both nets on three workers sharing Mongo', () => {
  let plan: ReturnType<typeof planDemoGatingRuns>
  let db: string

  beforeAll(async () => {
    const buildError = inject('buildError')
    if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
    const mongo = mongoServer()
    db = `nets_e2e_${Date.now().toString(36)}`
    client = new MongoClient(mongo.url)
    plan = planDemoGatingRuns(
      generateSandboxFixture({ repos: 2, pullsPerRepo: 8, issuesPerRepo: 6, seed: 7 }),
      {
        now: new Date(),
      },
    )
    sandbox = await startSandboxForge({ fixture: plan.fixture })
    await seedDemoGatingRuns(new MongoGateRunStore(client.db(db)), plan)
  })

  it('spends each net’s requests on one process and posts one failure per dead review', async () => {
    const env = {
      PORT: '0',
      MONGO_URI: mongoServer().url,
      MONGO_DB: db,
      GITHUB_APP_ID: String(sandbox.appId),
      GITHUB_INSTALLATION_ID: String(sandbox.installationId),
      GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
      GITHUB_API_URL: sandbox.url,
      LEASECRON_NET_MERGE_GATE_SWEEPER_SCHEDULE: '* * * * * *',
      LEASECRON_NET_BOARD_ISSUE_SYNC_SCHEDULE: '*/2 * * * * *',
      // The schedules are compressed to seconds; a deep sweep posting its failures a second apart needs
      // more than the default TIMEOUT (the interval), as it has on the shipped minute schedule.
      LEASECRON_NET_MERGE_GATE_SWEEPER_TIMEOUT: '30s',
      LEASECRON_NET_BOARD_ISSUE_SYNC_TIMEOUT: '30s',
      LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    }
    const ws = [0, 1, 2].map(() => startWorkerProcess(['run'], env))
    running.push(...ws)
    const dead = plan.kinds.dead.length
    expect(dead, 'the seed has no dead review, the test proves nothing').toBeGreaterThan(0)
    // Each dead review's failure is a POST, spaced about a second apart by the throttling plugin.
    await Promise.race(
      ws.map((w) =>
        w.waitFor(
          (l) =>
            typeof l.msg === 'string' && l.msg.startsWith('merge-gate sweep: deep') && Number(l.offered) > 0,
          60_000,
          'a deep sweep',
        ),
      ),
    )
    await Promise.race(ws.map((w) => w.waitFor((l) => Array.isArray(l.repos), 30_000, 'a board sync pass')))
    const statusPosts = () =>
      sandbox
        .stats()
        .entries.filter((e) => e.method === 'POST' && e.route.includes('/statuses/'))
        .reduce((n, e) => n + e.count, 0)
    await vi.waitFor(
      () => expect(statusPosts(), 'not every dead review’s failure was posted').toBeGreaterThanOrEqual(dead),
      { timeout: 30_000, interval: 100 },
    )
    // A sweep pass that starts after the last failure was posted offers every dead review again: it would
    // post a second failure if the first were not recorded.
    const sweeps = () =>
      ws.reduce(
        (n, w) => n + w.lines.filter((l) => /^merge-gate sweep: \S+.* pass offered/.test(l.msg)).length,
        0,
      )
    const sweptBefore = sweeps()
    await vi.waitFor(
      () =>
        expect(sweeps(), 'no sweep pass ended after the failures were posted').toBeGreaterThan(
          sweptBefore + 1,
        ),
      { timeout: 30_000, interval: 100 },
    )
    for (const w of ws) w.child.kill('SIGTERM')
    for (const w of ws) expect((await w.exited).code, 'a worker did not stop cleanly').toBe(0)

    // Each process's own meter, flushed at stop: which lanes it spent requests on.
    const spentBy = (lane: string) =>
      ws.filter((w) =>
        w.lines.some(
          (l) =>
            l.event === 'forge_http_hour' &&
            (l.entries as Array<{ lane: string; count: number }>).some((e) => e.lane === lane && e.count > 0),
        ),
      )
    expect(spentBy('merge-gate-sweeper'), 'the sweeper ran on more than one replica').toHaveLength(1)
    expect(spentBy('board-issue-sync'), 'the board sync ran on more than one replica').toHaveLength(1)

    expect(statusPosts(), 'dead reviews got more (or fewer) than one failure each').toBe(dead)
    for (const id of plan.kinds.dead) {
      const run = plan.runs.find((r) => r.id === id)!
      const [owner, name] = run.repo.split('/') as [string, string]
      const repo = sandbox.store.repo(owner, name)!
      const failures = sandbox.store
        .statusesOf(repo, run.headSha)
        .filter((s) => s.state === 'failure' && s.description?.startsWith('review died'))
      expect(failures, `dead review ${id} does not have exactly one failure`).toHaveLength(1)
    }
  }, 120_000)
})
