/**
 * Commands name a per-installation net per installation: under GITHUB_INSTALLATION_IDS, `history
 * board-issue-sync:56` reads that installation's slots from the test Mongo, the plain name is refused listing
 * the installations' names, and under `all` any `<net>:<installation>` of a per-installation net is taken
 * as a configured net (its --limit and --json apply, no removed-net note) and the plain name is refused
 * saying how to name it.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'
import { MongoRunLedger } from '../../src/runs/mongo-run-ledger.js'
import { generateAppKeyPair } from '../../src/sandbox/sandbox-keys.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'

const database = await useTestDatabase('installation-names')
const env = (ids: string) => ({
  MONGO_URI: mongoServer().url,
  MONGO_DB: database.db.databaseName,
  GITHUB_APP_ID: '12',
  GITHUB_APP_PRIVATE_KEY: generateAppKeyPair('pkcs8').privateKey,
  GITHUB_INSTALLATION_IDS: ids,
  LEASECRON_NET_MERGE_GATE_SWEEPER_ENABLED: 'false',
  LOG_LEVEL: 'silent',
})

async function cli(args: string[], ids: string) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env: env(ids) })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

describe('per-installation net names in commands', () => {
  it('reads one installation’s history by <net>:<installation> and lists the names for the plain one', async () => {
    const slot = new Date('2026-11-30T10:00:00.000Z')
    const ledger = new MongoRunLedger(database.db)
    await ledger.claim({
      net: 'board-issue-sync:56',
      slot,
      owner: 'h-1',
      fence: 1,
      startedAt: slot,
      installation: 56,
    })
    const read = await cli(['history', 'board-issue-sync:56', '--json'], '34,56')
    expect(read.code, read.err).toBe(0)
    expect(read.out).toContain('2026-11-30T10:00:00.000Z')
    const plain = await cli(['history', 'board-issue-sync'], '34,56')
    expect(plain.code).not.toBe(0)
    expect(plain.err).toContain('board-issue-sync:34, board-issue-sync:56')
    const discovered = await cli(['history', 'board-issue-sync:56', '--json'], 'all')
    expect(discovered.code, discovered.err).toBe(0)
    expect(discovered.out).toContain('2026-11-30T10:00:00.000Z')
    const unknown = await cli(['history', 'no-such-net:56'], 'all')
    expect(unknown.code, 'a net nobody configured has no installation names').not.toBe(0)
  })

  it('reads an installation’s history under `all` as a configured net, honouring --json and --limit', async () => {
    const ledger = new MongoRunLedger(database.db)
    for (const hour of [11, 12, 13]) {
      const slot = new Date(`2026-11-30T${hour}:00:00.000Z`)
      await ledger.claim({
        net: 'board-issue-sync:78',
        slot,
        owner: 'h-1',
        fence: 1,
        startedAt: slot,
        installation: 78,
      })
    }
    const read = await cli(['history', 'board-issue-sync:78', '--json', '--limit', '2'], 'all')
    expect(read.code, read.err).toBe(0)
    expect(
      read.err,
      'a live installation’s net must not be called removed, with advice to delete its runs',
    ).toBe('')
    const runs = JSON.parse(read.out) as unknown[]
    expect(runs, '--limit 2 must list the two newest runs, as JSON').toHaveLength(2)
  })

  it('refuses the plain name under `all` saying a per-installation net is named <net>:<installation>', async () => {
    const plain = await cli(['history', 'board-issue-sync'], 'all')
    expect(plain.code).toBe(64)
    expect(plain.err, 'the usage error must say which names work, not "expected one of ;"').toContain(
      'board-issue-sync:<installation>',
    )
    expect(plain.err).toMatch(/GITHUB_INSTALLATION_IDS=all: .* e\.g\. [a-z-]+:12\)/)
  })
})
