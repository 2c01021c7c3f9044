/**
 * `leasecron status` by installation, against the test Mongo with the shipped nets under
 * GITHUB_INSTALLATION_IDS=34,56: the plain listing ends with one line per installation (its leases held
 * per replica, its runs by outcome), `--installation 56` narrows the listing and the snapshot to that
 * installation's nets, and a filter that is no installation id is refused with exit 64 naming it. Under
 * GITHUB_INSTALLATION_IDS=all the installations are those the stored leases name.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { EXIT } from '../../src/cli/exit-codes.js'
import { MongoStore } from '../../src/lease/mongo-store.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'
import type { StatusSnapshot } from '../../src/status/status-snapshot.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'

const database = await useTestDatabase('status-by-installation')
const env = {
  MONGO_URI: mongoServer().url,
  MONGO_DB: database.db.databaseName,
  GITHUB_APP_ID: '12',
  GITHUB_APP_PRIVATE_KEY: generateAppKeyPair('pkcs8').privateKey,
  GITHUB_INSTALLATION_IDS: '34,56',
  LEASECRON_NET_MERGE_GATE_SWEEPER_ENABLED: 'false',
  LOG_LEVEL: 'silent',
}

async function cli(args: string[], ids = env.GITHUB_INSTALLATION_IDS) {
  const out: string[] = []
  const err: string[] = []
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) }
  const code = await main(args, { ...io, env: { ...env, GITHUB_INSTALLATION_IDS: ids } })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

async function seed(): Promise<void> {
  const now = new Date()
  const store = new MongoStore(database.db)
  expect(await store.acquire('board-issue-sync:34', 'replica-a', now, 600_000)).not.toBe(false)
  expect(await store.acquire('board-issue-sync:56', 'replica-b', now, 600_000)).not.toBe(false)
  const ledger = new MongoRunLedger(database.db)
  for (const [installation, outcome, minutes] of [
    [56, 'ok', 3],
    [56, 'failed', 2],
    [34, 'ok', 1],
  ] as const) {
    const slot = new Date(now.getTime() - minutes * 60_000)
    const net = `board-issue-sync:${installation}`
    const owner = installation === 34 ? 'replica-a' : 'replica-b'
    await ledger.claim({ net, slot, owner, fence: 1, startedAt: slot, installation })
    await ledger.finish(net, slot, owner, 1, { finishedAt: slot, outcome })
  }
}

describe('leasecron status by installation', () => {
  it('lists every installation’s holders and runs, and narrows the listing and the snapshot to one', async () => {
    await seed()
    const all = await cli(['status'])
    expect(all.code, all.err).toBe(0)
    expect(all.out).toContain('installation 34: 1 net; leases held: replica-a 1; runs shown: ok 1')
    expect(all.out).toContain('installation 56: 1 net; leases held: replica-b 1; runs shown: failed 1, ok 1')
    const one = await cli(['status', '--installation', '56'])
    expect(one.code, one.err).toBe(0)
    expect(one.out).toContain('board-issue-sync:56')
    expect(one.out, 'the other installation’s lease is listed under the filter').not.toContain(
      'board-issue-sync:34',
    )
    const json = await cli(['status', '--json', '--installation', '56'])
    expect(json.code, json.err).toBe(0)
    const snapshot = JSON.parse(json.out) as StatusSnapshot
    expect(snapshot.installationFilter).toBe(56)
    // The sweeper, disabled here, is listed (as the page lists a disabled net) but not summarized.
    expect(snapshot.nets.map((n) => [n.name, n.installation])).toEqual([
      ['merge-gate-sweeper:56', 56],
      ['board-issue-sync:56', 56],
    ])
    expect(snapshot.installations).toEqual([
      {
        installation: 56,
        nets: ['board-issue-sync:56'],
        holders: [{ owner: 'replica-b', leases: 1, thisReplica: false }],
        unheld: 0,
        runs: { failed: 1, ok: 1 },
        budget: null,
      },
    ])
  }, 60_000)

  it('refuses a filter that is no installation id with exit 64, naming what was given and expected', async () => {
    const bad = await cli(['status', '--installation', 'org-b'])
    expect(bad.code, 'a bad filter did not exit as bad usage').toBe(EXIT.usage)
    expect(bad.err).toContain('--installation: expected one installation id')
    expect(bad.err).toContain('"org-b"')
    const zero = await cli(['status', '--json', '--installation', '0'])
    expect(zero.code).toBe(EXIT.usage)
  })

  it('under GITHUB_INSTALLATION_IDS=all, shows each stored installation lease’s last run and narrows to it', async () => {
    const now = new Date()
    const store = new MongoStore(database.db)
    expect(await store.acquire('board-issue-sync:78', 'replica-c', now, 600_000)).not.toBe(false)
    const ledger = new MongoRunLedger(database.db)
    const slot = new Date(now.getTime() - 60_000)
    const run = { net: 'board-issue-sync:78', slot, owner: 'replica-c', fence: 1 }
    await ledger.claim({ ...run, startedAt: slot, installation: 78 })
    await ledger.finish(run.net, slot, run.owner, 1, { finishedAt: slot, outcome: 'ok' })
    const all = await cli(['status'], 'all')
    expect(all.code, all.err).toBe(0)
    const line = all.out.split('\n').find((l) => l.startsWith('board-issue-sync:78'))
    expect(line, 'a running installation’s net must not read "no run recorded" under `all`').toContain(
      'last run',
    )
    const one = await cli(['status', '--installation', '78'], 'all')
    expect(one.code, one.err).toBe(0)
    expect(one.out, 'the filter must find the installation’s lease under `all`').toContain(
      'board-issue-sync:78',
    )
    expect(one.out).toContain('installation 78: 1 net; leases held: replica-c 1; runs shown: ok 1')
  }, 60_000)
})
