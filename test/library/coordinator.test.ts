/**
 * leaseCoordinator with real node-cron tasks in three processes against the test Mongo: every fire of a
 * `*\/1 * * * * *` task runs on exactly one process, and killing the process that runs them costs at most
 * the fires its lease still covered.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import {
  leaseCoordinator,
  MemoryNetControlStore,
  MemoryRunLedger,
  MemoryStore,
  MongoRunLedger,
  pauseNet,
  resumeNet,
} from '../../src/index.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { type NodeProcess, spawnNodeProcess } from '../support/node-process.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/cron-process.ts', import.meta.url))
const LEASE_MS = 3000
const mongo = await useTestDatabase('coordinator').catch((error: unknown) => error as Error)

interface FireLine {
  event: string
  slot?: string
  owner?: string
}

const started: NodeProcess<FireLine>[] = []
const databases: string[] = []
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop('SIGKILL')))
  if (mongo instanceof Error) return
  await Promise.all(
    databases.map((name) =>
      mongo.client
        .db(name)
        .dropDatabase()
        .catch(() => undefined),
    ),
  )
})

function startProcesses(mode: 'ledger' | 'lease', dbName: string, url: string): NodeProcess<FireLine>[] {
  const env = { MONGO_URL: url, MONGO_DB: dbName, MODE: mode, LEASE_MS: String(LEASE_MS) }
  const processes = [1, 2, 3].map((n) =>
    spawnNodeProcess<FireLine>('--import', ['tsx', FIXTURE], env, {
      label: `${mode}-${n}`,
    }),
  )
  started.push(...processes)
  return processes
}

/** Every fire any process ran (its inserted document), as [slot ms, owner], oldest first. */
async function fires(dbName: string): Promise<{ slot: number; owner: string }[]> {
  if (mongo instanceof Error) throw mongo
  const docs = await mongo.client.db(dbName).collection('fires').find().toArray()
  return docs
    .map((d) => ({ slot: Date.parse(String(d.slot)), owner: String(d.owner) }))
    .sort((a, b) => a.slot - b.slot)
}

async function waitForFires(dbName: string, count: number, after: number): Promise<void> {
  const deadline = Date.now() + count * 1000 + 60_000
  while ((await fires(dbName)).filter((f) => f.slot > after).length < count) {
    if (Date.now() > deadline)
      throw new Error(`fewer than ${count} fires after ${new Date(after).toISOString()} in time`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

/** The slots (whole seconds) between first and last that no process ran. */
function missing(slots: number[], from: number, to: number): number[] {
  const seen = new Set(slots)
  const gaps: number[] = []
  for (let s = from; s <= to; s += 1000) if (!seen.has(s)) gaps.push(s)
  return gaps
}

describe.runIf(!(mongo instanceof Error))('leaseCoordinator across three node-cron processes', () => {
  if (mongo instanceof Error) return

  for (const mode of ['ledger', 'lease'] as const) {
    test.concurrent(`${mode === 'ledger' ? 'with the run ledger' : 'with the lease store alone'}: each of 20 fires runs once, and a killed holder costs only the fires its lease covered`, async () => {
      const dbName = `${mongo.db.databaseName}_${mode}`
      databases.push(dbName)
      const processes = startProcesses(mode, dbName, mongoServer().url)
      await Promise.all(processes.map((p) => p.waitFor((l) => l.event === 'ready', 60_000, 'ready line')))
      const startAt = Date.now() + 1000
      await waitForFires(dbName, 20, startAt)

      const before = (await fires(dbName)).filter((f) => f.slot > startAt)
      const beforeSlots = before.map((f) => f.slot)
      expect(new Set(beforeSlots).size, 'a fire ran on two processes').toBe(beforeSlots.length)
      const first = beforeSlots[0] as number
      const last = beforeSlots.at(-1) as number
      expect(missing(beforeSlots, first, last), 'fires were lost while every process was alive').toEqual([])

      const holder = before.at(-1)?.owner as string
      const victim = processes.find((p) => p.lines.some((l) => l.event === 'ready' && l.owner === holder))
      expect(victim, 'the holder of the latest fire is one of the three').toBeDefined()
      const killedAt = Date.now()
      await victim?.stop('SIGKILL')
      await waitForFires(dbName, 5, killedAt + LEASE_MS)

      const all = await fires(dbName)
      const slots = all.map((f) => f.slot)
      const twice = slots.filter((slot, i) => slots.indexOf(slot) !== i)
      if (mode === 'lease' && mongo.isFerretDb) {
        // FerretDB applies an update as read-then-write, so two survivors taking over the expired lease
        // within milliseconds can both win (docs/development.md, "The test Mongo"); MongoDB, or the ledger, rules that out.
        // Everywhere but the takeover itself each fire still runs once.
        console.log(
          'coordinator: the lease-only takeover race is not checked on FerretDB (read-then-write updates)',
        )
        const takeover = (slot: number) => slot >= killedAt - 1000 && slot <= killedAt + LEASE_MS + 2000
        expect(
          twice.filter((slot) => !takeover(slot)),
          'a fire outside the takeover ran twice',
        ).toEqual([])
      } else {
        expect(twice, 'a fire ran on two processes around the takeover').toEqual([])
      }
      const lost = missing(slots, first, slots.at(-1) as number)
      // The lease still covered the fires up to LEASE_MS after its last renewal, plus the fire in flight.
      expect(lost.length, `lost fires ${lost.map((s) => new Date(s).toISOString())}`).toBeLessThanOrEqual(
        LEASE_MS / 1000 + 1,
      )
      expect(all.at(-1)?.owner, 'another process took over').not.toBe(holder)

      if (mode === 'ledger') {
        const runs = await mongo.client.db(dbName).collection('net_runs').countDocuments({ net: 'heartbeat' })
        expect(runs, 'each fire claimed its slot in the ledger').toBeGreaterThanOrEqual(all.length)
      }
    }, 180_000)
  }
})

describe.runIf(!(mongo instanceof Error))('leaseCoordinator and the run ledger', () => {
  if (mongo instanceof Error) return

  test('skips a fire due while its task is paused, records its slot paused, and runs again once resumed', async () => {
    const ledger = new MemoryRunLedger()
    const controls = new MemoryNetControlStore()
    const coordinator = leaseCoordinator({
      store: new MemoryStore(),
      ledger,
      controls,
      owner: 'this-process',
    })
    const slot = new Date(Math.floor(Date.now() / 1000) * 1000)
    await pauseNet(controls, 'heartbeat', { reason: 'deploy freeze', by: 'ann' }, new Date())
    expect(
      await coordinator.shouldRun(`heartbeat:${slot.toISOString()}`, 3000),
      'a paused task’s fire ran',
    ).toBe(false)
    expect(await ledger.get('heartbeat', slot)).toMatchObject({ outcome: 'paused', attempts: 0 })
    expect((await ledger.get('heartbeat', slot))?.error).toMatch(/ann.*deploy freeze/)
    await resumeNet(controls, 'heartbeat', {}, new Date())
    const next = new Date(slot.getTime() + 1000)
    expect(
      await coordinator.shouldRun(`heartbeat:${next.toISOString()}`, 3000),
      'a resumed task stayed paused',
    ).toBe(true)
    await coordinator.close()
  })

  test('does not run a fire whose slot another process already claimed, though it holds the lease', async () => {
    const collection = `net_runs_claimed_${Date.now().toString(36)}`
    const ledger = new MongoRunLedger(mongo.db, { collection })
    // The other process: its own connection to the same ledger (a stalled holder's successor, say).
    const other = new MongoRunLedger(mongo.client.db(mongo.db.databaseName), { collection })
    const coordinator = leaseCoordinator({ store: new MemoryStore(), ledger, owner: 'this-process' })
    const taken = new Date('2026-09-30T15:00:01.000Z')
    const free = new Date('2026-09-30T15:00:02.000Z')
    expect(
      await other.claim({
        net: 'heartbeat',
        slot: taken,
        owner: 'other-process',
        fence: 9,
        startedAt: taken,
      }),
    ).toBe(true)

    expect(
      await coordinator.shouldRun(`heartbeat:${taken.toISOString()}`, 3000),
      'a fire ran on a slot another process had claimed: it would run twice',
    ).toBe(false)
    await coordinator.onComplete(`heartbeat:${taken.toISOString()}`)
    expect(
      await ledger.get('heartbeat', taken),
      'the skipped fire wrote over the other process’s run',
    ).toEqual(expect.objectContaining({ owner: 'other-process', fence: 9 }))
    expect((await ledger.get('heartbeat', taken))?.outcome).toBeUndefined()
    expect(
      await coordinator.shouldRun(`heartbeat:${free.toISOString()}`, 3000),
      'the holder refused a slot nobody had claimed',
    ).toBe(true)
    expect(await ledger.get('heartbeat', free)).toMatchObject({ owner: 'this-process', fence: 1 })
    await coordinator.close()
  })
})
