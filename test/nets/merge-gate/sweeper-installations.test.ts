/**
 * The merge-gate sweeper across installations, on a real worker acting as two installations of the
 * sandbox forge (GITHUB_INSTALLATION_IDS=101,202), on both stores (memory, and `gate_runs` on the test
 * Mongo): each installation's sweeper (`merge-gate-sweeper:<id>`) settles the runs naming its installation
 * through its own token, the runs naming none go with the first listed installation (as they did under
 * GITHUB_INSTALLATION_ID), and no sweeper asks about another installation's repository — so none is
 * settled by a 404 it got for acting as the wrong installation. The page query's filter is checked on
 * both twins too.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { LEASES } from '../../../src/leases.js'
import type { GateRunStore } from '../../../src/nets/merge-gate/gate-run-store.js'
import { MemoryGateRunStore } from '../../../src/nets/merge-gate/memory-gate-run-store.js'
import { createMergeGateSweeper } from '../../../src/nets/merge-gate/merge-gate-sweeper.js'
import { MongoGateRunStore } from '../../../src/nets/merge-gate/mongo-gate-run-store.js'
import { recordGatingRun } from '../../../src/nets/merge-gate/record-gating-run.js'
import { type SandboxForge, startSandboxForge } from '../../../src/sandbox/sandbox-forge.js'
import { createWorker, type Worker } from '../../../src/worker/worker.js'
import { mongoServer, useTestDatabase } from '../../support/mongo.js'

const PUBLIC_URL = 'https://review.example.test'
const database = await useTestDatabase('sweeper-installations')

let sandbox: SandboxForge | undefined
let worker: Worker | undefined
afterEach(async () => {
  await worker?.stop()
  worker = undefined
  await sandbox?.close()
  sandbox = undefined
})

async function startSandbox(): Promise<SandboxForge> {
  sandbox = await startSandboxForge({
    fixture: {
      repos: [
        { owner: 'org-a', name: 'one', id: 801 },
        { owner: 'org-b', name: 'two', id: 802 },
      ],
    },
    installations: [
      { id: 101, account: 'org-a' },
      { id: 202, account: 'org-b' },
    ],
  })
  return sandbox
}

/** A dead review on a new pull of `repo`, its pending status claimed by run `id`, recorded in `store`. */
async function deadRun(
  forge: SandboxForge,
  store: GateRunStore,
  id: string,
  repo: string,
  installation?: number,
) {
  const [owner, name] = repo.split('/') as [string, string]
  const pull = forge.store.addPull(owner, name)
  forge.store.addStatus(owner, name, pull.headSha, {
    state: 'pending',
    context: 'review/verdict',
    targetUrl: `${PUBLIC_URL}/runs/${id}`,
  })
  await recordGatingRun(store, {
    id,
    repo,
    pull: pull.number,
    headSha: pull.headSha,
    ...(installation === undefined ? {} : { installation }),
    state: 'died',
    reason: 'runner evicted',
    updatedAt: new Date(Date.now() - 35 * 60_000),
  })
  return pull.headSha
}

async function sweepsEachInstallationApart(
  store: GateRunStore,
  env: Record<string, string>,
  net = createMergeGateSweeper({ store }),
) {
  const forge = await startSandbox()
  const heads = {
    a: await deadRun(forge, store, 'run-a', 'org-a/one', 101),
    b: await deadRun(forge, store, 'run-b', 'org-b/two', 202),
    legacy: await deadRun(forge, store, 'run-legacy', 'org-a/one'),
  }
  worker = createWorker({
    nets: [net],
    leases: LEASES,
    env: {
      LEASECRON_FORGE: 'github',
      GITHUB_APP_ID: String(forge.appId),
      GITHUB_APP_PRIVATE_KEY: forge.privateKey,
      GITHUB_INSTALLATION_IDS: '101,202',
      GITHUB_API_URL: forge.url,
      PUBLIC_URL,
      // Generous for a loaded machine: a pass (token mint, three lookups and posts) may take seconds.
      LEASECRON_NET_MERGE_GATE_SWEEPER_SCHEDULE: '*/10 * * * * *',
      LEASECRON_NET_MERGE_GATE_SWEEPER_TIMEOUT: '9s',
      LOG_LEVEL: 'silent',
      PORT: '0',
      ...env,
    },
  })
  await worker.start()
  await expect
    .poll(
      async () =>
        (await Promise.all(['run-a', 'run-b', 'run-legacy'].map((id) => store.get(id)))).every(
          (r) => r?.settledAt,
        ),
      {
        timeout: 45_000,
        interval: 200,
      },
    )
    .toBe(true)
  const statesOn = (owner: string, name: string, sha: string) =>
    forge.store.statusesOf(forge.store.repo(owner, name)!, sha).map((s) => s.state)
  expect(statesOn('org-a', 'one', heads.a), 'run-a was settled without its failure posted').toContain(
    'failure',
  )
  expect(statesOn('org-b', 'two', heads.b), 'run-b was settled without its failure posted').toContain(
    'failure',
  )
  expect(
    statesOn('org-a', 'one', heads.legacy),
    'the unnamed run was not settled by the first installation',
  ).toContain('failure')
  const asked = forge.requestLog().entries.filter((e) => e.url.startsWith('/repos/'))
  const strays = asked.filter((e) => (e.installation === '101') !== e.url.startsWith('/repos/org-a/'))
  expect(strays, 'a sweeper asked about another installation’s repository').toEqual([])
  expect(
    asked.filter((e) => e.status === 404),
    'a run was looked up as the wrong installation',
  ).toEqual([])
}

describe('the merge-gate sweeper across installations', () => {
  it('settles each installation’s runs with its own token in memory, the unnamed ones with the first', async () => {
    await sweepsEachInstallationApart(new MemoryGateRunStore(), {})
  }, 90_000)

  it('settles each installation’s runs with its own token in gate_runs on the test Mongo', async () => {
    const db = `${database.db.databaseName}_w`
    const store = new MongoGateRunStore(database.client.db(db))
    await sweepsEachInstallationApart(
      store,
      { MONGO_URI: mongoServer().url, MONGO_DB: db },
      createMergeGateSweeper(),
    )
    await database.client.db(db).dropDatabase()
  }, 90_000)

  it('pages only an installation’s runs, and the unnamed ones only where asked, on both twins', async () => {
    for (const store of [new MemoryGateRunStore(), new MongoGateRunStore(database.db)]) {
      const at = new Date('2026-11-30T10:00:00.000Z')
      const base = {
        repo: 'org-a/one',
        pull: 1,
        headSha: 'a'.repeat(40),
        state: 'running',
        updatedAt: at,
      } as const
      await recordGatingRun(store, { ...base, id: 'p-101', installation: 101 })
      await recordGatingRun(store, { ...base, id: 'p-202', installation: 202 })
      await recordGatingRun(store, { ...base, id: 'p-none' })
      const ids = async (installation?: { id: number; unnamed: boolean }) =>
        (await store.page({ from: at, to: at, limit: 10, installation })).runs.map((r) => r.id)
      expect(await ids()).toEqual(['p-none', 'p-202', 'p-101'])
      expect(await ids({ id: 101, unnamed: true })).toEqual(['p-none', 'p-101'])
      expect(await ids({ id: 202, unnamed: false })).toEqual(['p-202'])
      expect((await store.get('p-202'))?.installation).toBe(202)
      await expect(recordGatingRun(store, { ...base, id: 'p-bad', installation: 0 })).rejects.toThrow(
        /installation/,
      )
    }
  })
})
