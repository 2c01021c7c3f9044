/**
 * Under GITHUB_INSTALLATION_IDS=all, `once` and `backfill` run `<net>:<installation>` only for an
 * installation the App lists: against the sandbox forge serving two installations, a third is refused with
 * the usage exit code, naming it and the discovered ones, before any slot is claimed; a listed one runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { EXIT } from '../../src/cli/exit-codes.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'

const database = await useTestDatabase('undiscovered-installation')
let sandbox: SandboxForge
beforeAll(async () => {
  sandbox = await startSandboxForge({
    fixture: { repos: [{ owner: 'org-a', name: 'one' }] },
    installations: [
      { id: 101, account: 'org-a' },
      { id: 202, account: 'org-b' },
    ],
  })
})
afterAll(async () => {
  await sandbox?.close()
})

async function cli(args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const env = {
    MONGO_URI: mongoServer().url,
    MONGO_DB: database.db.databaseName,
    LEASECRON_FORGE: 'github',
    GITHUB_APP_ID: String(sandbox.appId),
    GITHUB_APP_PRIVATE_KEY: sandbox.privateKey,
    GITHUB_API_URL: sandbox.url,
    GITHUB_INSTALLATION_IDS: 'all',
    LOG_LEVEL: 'silent',
  }
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('a <net>:<installation> the App does not have, under GITHUB_INSTALLATION_IDS=all', () => {
  it('is refused by once and backfill, naming it and the discovered installations, with nothing claimed', async () => {
    const once = await cli(['once', 'merge-gate-sweeper:999', '--json'])
    expect(once.code, `once ran as an installation the App does not have: ${once.out}`).toBe(EXIT.usage)
    expect(once.err).toContain('no active installation 999')
    expect(once.err).toContain('discovered 101, 202')
    expect(once.err).toContain('expected one of merge-gate-sweeper:101, merge-gate-sweeper:202')
    const backfill = await cli([
      'backfill',
      'merge-gate-sweeper:999',
      '--from',
      '2026-11-30T10:00:00Z',
      '--to',
      '2026-11-30T10:02:00Z',
    ])
    expect(backfill.code, `backfill ran as an installation the App does not have: ${backfill.out}`).toBe(
      EXIT.usage,
    )
    expect(backfill.err).toContain('no active installation 999')
    const runs = await new MongoRunLedger(database.db).history('merge-gate-sweeper:999', 10)
    expect(runs, 'slots were claimed for an installation the App does not have').toEqual([])
  })

  it('still runs once for an installation the App lists', async () => {
    const once = await cli(['once', 'merge-gate-sweeper:202', '--now', '--json'])
    expect(once.code, once.err).toBe(EXIT.ok)
    expect(JSON.parse(once.out)).toMatchObject({ net: 'merge-gate-sweeper:202', outcome: 'ran' })
  })
})
