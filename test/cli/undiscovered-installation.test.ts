/**
 * Under GITHUB_INSTALLATION_IDS=all, `once` and `backfill` run `<net>:<installation>` only for an
 * installation the App lists, and `pause` and `resume` write its controls only then: against the sandbox
 * forge serving two installations, a third is refused with the usage exit code, naming it and the
 * discovered ones, before any slot is claimed or control written; a listed one runs, pauses and resumes.
 * A GitHub that does not answer does not block a pause: it is said, and the pause is written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { EXIT } from '../../src/cli/exit-codes.js'
import { NET_CONTROLS_COLLECTION } from '../../src/control/mongo-net-control-store.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { type SandboxForge, startSandboxForge } from '../../src/sandbox/sandbox-forge.js'
import { freePort } from '../support/free-port.js'
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

async function cli(args: string[], overrides: Record<string, string> = {}) {
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
    ...overrides,
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

  it('is refused by pause and resume, naming it and the discovered installations, with no control written', async () => {
    const controls = database.db.collection(NET_CONTROLS_COLLECTION)
    for (const command of ['pause', 'resume']) {
      const refused = await cli([command, 'merge-gate-sweeper:999', '--json'])
      expect(refused.code, `${command} wrote a control for an installation the App does not have`).toBe(
        EXIT.usage,
      )
      expect(refused.err).toContain(`leasecron ${command}: merge-gate-sweeper:999: the GitHub App has no`)
      expect(refused.err).toContain('discovered 101, 202')
      expect(refused.err).toContain('expected one of merge-gate-sweeper:101, merge-gate-sweeper:202')
    }
    expect(await controls.countDocuments({ _id: 'merge-gate-sweeper:999' as never })).toBe(0)
  })

  it('still pauses and resumes an installation the App lists', async () => {
    const paused = await cli(['pause', 'merge-gate-sweeper:202', '--for', '1h', '--json'])
    expect(paused.code, paused.err).toBe(EXIT.ok)
    expect(JSON.parse(paused.out)).toMatchObject({ net: 'merge-gate-sweeper:202' })
    const resumed = await cli(['resume', 'merge-gate-sweeper:202', '--json'])
    expect(resumed.code, resumed.err).toBe(EXIT.ok)
    expect(JSON.parse(resumed.out)).toMatchObject({ net: 'merge-gate-sweeper:202', resumed: true })
  })

  it('still pauses when GitHub does not answer the listing, saying the check was not made', async () => {
    const down = `http://127.0.0.1:${await freePort()}`
    const paused = await cli(['pause', 'merge-gate-sweeper:999', '--json'], { GITHUB_API_URL: down })
    expect(paused.code, paused.err).toBe(EXIT.ok)
    expect(paused.err).toContain("could not check installation 999 against the App's installations")
    expect(JSON.parse(paused.out)).toMatchObject({ net: 'merge-gate-sweeper:999' })
  }, 30_000)
})
