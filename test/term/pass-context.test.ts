/**
 * What a pass knows (#40): why its slot runs, which attempt, the run before it, the last success and the
 * slots to come — through the worker's term (fake timers, memory ledger), `once` on both stores, a
 * backfill, and `leasecron/testing`'s runOnePass; and, counted by the driver's command monitoring, a term's
 * steady passes send the ledger nothing more for it than their claim and their end, and a `once` the very
 * commands it sent before (its one look for older claims moved ahead of the pass, and told to it).
 */
import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { defineNet, loadConfig, MemoryRunLedger, MongoRunLedger, type PassContext } from '../../src/index.js'
import { ownerId } from '../../src/lease/owner-id.js'
import { createLogger } from '../../src/observe/logger.js'
import type { RunLedger } from '../../src/runs/run-ledger.js'
import { runBackfill } from '../../src/term/backfill.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { runOnce } from '../../src/term/one-slot.js'
import { runOnePass } from '../../src/testing/run-one-pass.js'
import { runOnceOnRuntime } from '../../src/worker/one-slot-on-runtime.js'
import { openRuntime, type PassRuntime } from '../../src/worker/runtime.js'
import { mongoServer, useTestDatabase } from '../support/mongo.js'
import { backfillSpec, campaignOptions, noForge, onceSpec } from '../support/term-specs.js'
import { TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'

const log = createLogger({ level: 'silent' })
const opened: PassRuntime[] = []
afterAll(async () => {
  for (const runtime of opened) await runtime.close()
})
afterEach(() => vi.useRealTimers())

/** What a pass was told, as plain values (ISO instants) a test can compare. */
interface Told {
  slot: string
  reason: string
  attempt: number
  previous?: { slot: string; outcome?: string }
  lastSuccess?: string
  upcoming: string[]
}

/** An every-second net whose passes record what they were told, and fail where `fails` says. */
function tellingNet(fails: (context: PassContext) => boolean = () => false) {
  const told: Told[] = []
  const net = defineNet({
    name: 'tick-net',
    lease: TICK_LEASE.name,
    schedule: '* * * * * *',
    description: 'records what each pass is told',
    options: {},
    setup: () => undefined,
    term: () => async (context: PassContext) => {
      told.push(toldOf(context))
      if (fails(context)) throw new Error(`slot ${context.slot.toISOString()} fails on purpose`)
    },
  })
  return { net, told }
}

function toldOf(c: PassContext): Told {
  return {
    slot: c.slot.toISOString(),
    reason: c.reason,
    attempt: c.attempt,
    ...(c.previous
      ? {
          previous: {
            slot: c.previous.slot.toISOString(),
            ...(c.previous.outcome ? { outcome: c.previous.outcome } : {}),
          },
        }
      : {}),
    ...(c.lastSuccess ? { lastSuccess: c.lastSuccess.slot.toISOString() } : {}),
    upcoming: c.upcoming.map((d) => d.toISOString()),
  }
}

function configOf(net: ReturnType<typeof tellingNet>['net'], env: Record<string, string> = {}) {
  const loaded = loadConfig({ LEASECRON_FORGE: 'sandbox', ...env }, [net], TEST_LEASES, { needsForge: false })
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  return loaded.config
}

const at = (seconds: number) => `2026-09-30T15:00:${String(seconds).padStart(2, '0')}.000Z`

/** A run an earlier term recorded for `seconds` past 15:00. */
async function recorded(ledger: RunLedger, seconds: number, outcome: 'ok' | 'failed') {
  const slot = new Date(at(seconds))
  await ledger.claim({ net: 'tick-net', slot, owner: 'earlier', fence: 1, startedAt: slot })
  const finishedAt = new Date(slot.getTime() + 100)
  await ledger.finish('tick-net', slot, 'earlier', 1, { finishedAt, outcome, attempts: 1 })
}

describe('a pass of the worker’s term', () => {
  it('is told why it runs, its attempt, the run before it, the last success and the next slots, from the election’s read and the term’s own ends', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    })
    vi.setSystemTime(new Date('2026-09-30T15:00:02.200Z'))
    const ledger = new MemoryRunLedger()
    await recorded(ledger, 0, 'ok')
    await recorded(ledger, 1, 'failed')
    // Slot :03 fails its first attempt; its retry (RETRIES=1) succeeds.
    const { net, told } = tellingNet((c) => c.slot.toISOString() === at(3) && c.attempt === 1)
    const config = configOf(net, {
      LEASECRON_NET_TICK_NET_RETRIES: '1',
      LEASECRON_NET_TICK_NET_RETRY_BACKOFF: '100ms',
    })
    const stop = new AbortController()
    const done = runNetCampaign(
      campaignOptions(config.nets[0]!, { ledger, runHistory: 1000, signal: stop.signal }),
    )
    await vi.advanceTimersByTimeAsync(2_500)
    stop.abort()
    await vi.advanceTimersByTimeAsync(1_000)
    await done
    expect(told, 'what the passes were told').toEqual([
      {
        slot: at(2),
        reason: 'catch-up',
        attempt: 1,
        previous: { slot: at(1), outcome: 'failed' },
        lastSuccess: at(0),
        upcoming: [at(3), at(4), at(5)],
      },
      {
        slot: at(3),
        reason: 'tick',
        attempt: 1,
        previous: { slot: at(2), outcome: 'ok' },
        lastSuccess: at(2),
        upcoming: [at(4), at(5), at(6)],
      },
      {
        slot: at(3),
        reason: 'tick',
        attempt: 2,
        previous: { slot: at(2), outcome: 'ok' },
        lastSuccess: at(2),
        upcoming: [at(4), at(5), at(6)],
      },
      {
        slot: at(4),
        reason: 'tick',
        attempt: 1,
        previous: { slot: at(3), outcome: 'ok' },
        lastSuccess: at(3),
        upcoming: [at(5), at(6), at(7)],
      },
    ])
  })

  it('is told the previous slot failed, and the older success, after a pass of its own term failed', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    })
    vi.setSystemTime(new Date('2026-09-30T15:00:00.200Z'))
    const { net, told } = tellingNet((c) => c.slot.toISOString() === at(1))
    const stop = new AbortController()
    const done = runNetCampaign(
      campaignOptions(configOf(net).nets[0]!, { ledger: new MemoryRunLedger(), signal: stop.signal }),
    )
    await vi.advanceTimersByTimeAsync(2_500)
    stop.abort()
    await vi.advanceTimersByTimeAsync(1_000)
    await done
    expect(told[0], 'a new net’s first pass was told of a run').toMatchObject({ reason: 'catch-up' })
    expect(told[0]!.previous).toBeUndefined()
    expect(told[2]).toMatchObject({ slot: at(2), previous: { slot: at(1), outcome: 'failed' } })
    expect(told[2]!.lastSuccess, 'the last success is the slot before the failure').toBe(at(0))
  })
})

describe('a pass run again after its holder was cut off', () => {
  it('is told `retry`, and the run before it', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
    })
    vi.setSystemTime(new Date('2026-09-30T15:00:02.200Z'))
    const ledger = new MemoryRunLedger()
    await recorded(ledger, 1, 'ok')
    // An older term (fence 0) claimed :02 and never ended it: the new holder runs it again (RETAKES).
    const slot = new Date(at(2))
    await ledger.claim({ net: 'tick-net', slot, owner: 'cut-off', fence: 0, startedAt: slot })
    const { net, told } = tellingNet()
    const config = configOf(net, { LEASECRON_NET_TICK_NET_RETRIES: '1' })
    const stop = new AbortController()
    const done = runNetCampaign(campaignOptions(config.nets[0]!, { ledger, signal: stop.signal }))
    await vi.advanceTimersByTimeAsync(500)
    stop.abort()
    await vi.advanceTimersByTimeAsync(1_000)
    await done
    expect(told[0]).toMatchObject({
      slot: at(2),
      reason: 'retry',
      attempt: 1,
      previous: { slot: at(1), outcome: 'ok' },
    })
  })
})

describe.each(['memory', 'mongo'] as const)('a pass of `once`, on the %s store', (store) => {
  it('is told the slot before it and the last success, from the one read its term makes', async () => {
    const env: Record<string, string> = {}
    if (store === 'mongo') {
      const database = await useTestDatabase('pass_context_once')
      Object.assign(env, { MONGO_URI: mongoServer().url, MONGO_DB: database.db.databaseName })
    }
    const { net, told } = tellingNet((c) => c.slot.toISOString().endsWith(':01.000Z'))
    const config = configOf(net, env)
    const runtime = await openRuntime({ config, log })
    opened.push(runtime)
    const once = (slot: Date, manual = false) =>
      runOnceOnRuntime({
        ...{ runtime, config, net: config.nets[0]!, slot, owner: ownerId('context-once'), log },
        signal: new AbortController().signal,
        ...(manual ? { manual: true } : {}),
      })
    const base = Math.floor(Date.now() / 60_000) * 60_000 - 60_000
    const second = (s: number) => new Date(base + s * 1000)
    expect((await once(second(0))).outcome).toBe('ran')
    expect((await once(second(1))).outcome).toBe('failed')
    expect((await once(second(2))).outcome).toBe('ran')
    expect((await once(second(3), true)).outcome).toBe('ran')
    const iso = (s: number) => second(s).toISOString()
    expect(told[0]).toMatchObject({ slot: iso(0), reason: 'tick', attempt: 1 })
    expect(told[0]!.previous, 'the first slot was told of a run before it').toBeUndefined()
    expect(told[2]).toEqual({
      slot: iso(2),
      reason: 'tick',
      attempt: 1,
      previous: { slot: iso(1), outcome: 'failed' },
      lastSuccess: iso(0),
      upcoming: [iso(3), iso(4), iso(5)],
    })
    expect(told[3], 'a manual run').toMatchObject({
      reason: 'manual',
      previous: { slot: iso(2), outcome: 'ok' },
      lastSuccess: iso(2),
    })
  })
})

describe('a backfill’s passes and runOnePass', () => {
  it('tells each backfilled slot `backfill` and the slot the backfill ran before it', async () => {
    const { net, told } = tellingNet()
    const ledger = new MemoryRunLedger()
    await recorded(ledger, 0, 'ok')
    const slots = [1, 2, 3].map((s) => new Date(at(s)))
    const result = await runBackfill(backfillSpec(configOf(net).nets[0]!, slots, { ledger }))
    expect(result.end).toBe('done')
    expect(told.map((t) => [t.reason, t.previous?.slot, t.lastSuccess])).toEqual([
      ['backfill', at(0), at(0)],
      ['backfill', at(1), at(1)],
      ['backfill', at(2), at(2)],
    ])
  })

  it('hands runOnePass’s pass the same context, read from the ledger it is given', async () => {
    const { net, told } = tellingNet()
    const ledger = new MemoryRunLedger()
    await recorded(ledger, 0, 'ok')
    await recorded(ledger, 1, 'failed')
    const run = await runOnePass(net, { forge: noForge as never, ledger, slot: new Date(at(2)) })
    expect(run.outcome).toBe('ran')
    expect(told).toEqual([
      {
        slot: at(2),
        reason: 'tick',
        attempt: 1,
        previous: { slot: at(1), outcome: 'failed' },
        lastSuccess: at(0),
        upcoming: [at(3), at(4), at(5)],
      },
    ])
  })
})

describe('the ledger commands of a term’s passes, counted by the driver’s command monitoring', () => {
  const server = mongoServer()
  const client = new MongoClient(server.url, { monitorCommands: true, serverSelectionTimeoutMS: 10_000 })
  const db = client.db(`t_pass_context_${randomBytes(4).toString('hex')}`)
  const sent: string[] = []
  client.on('commandStarted', (event) => {
    if (event.command[event.commandName] === 'net_runs') sent.push(event.commandName)
  })
  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined)
    await client.close()
  })

  it('are each its claim’s insert and delete and its end’s update, and no read, once the term has read its runs', async () => {
    const ledger = new MongoRunLedger(db)
    await ledger.ensureIndexes()
    const { net, told } = tellingNet()
    const stop = new AbortController()
    const options = campaignOptions(configOf(net).nets[0]!, { ledger, signal: stop.signal })
    const done = runNetCampaign(options)
    // The election's read, the first passes' looks for older claims and the first prune come first: a
    // term looks on every pass until one ends a call bound (1 s here) after it began.
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    const from = sent.length
    const toldFrom = told.length
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    const steady = sent.slice(from)
    const passes = told.slice(toldFrom)
    stop.abort()
    await done
    expect(passes.length, 'too few passes ran to count').toBeGreaterThanOrEqual(2)
    for (const pass of passes)
      expect(pass.previous, `the pass of ${pass.slot} was not told the slot before it`).toMatchObject({
        outcome: 'ok',
      })
    expect(
      steady.filter((name) => !['insert', 'delete', 'update'].includes(name)),
      'a steady pass sent the ledger more than its claim and its end: a read per pass, at 1,000 nets a thousand a minute',
    ).toEqual([])
    const counts = (name: string) => steady.filter((n) => n === name).length
    expect(Math.abs(counts('insert') - passes.length), 'one claim per pass').toBeLessThanOrEqual(1)
  }, 30_000)

  it('are for a `once` the claim, the one look for older claims (now before the pass), the end and the first prune, with or without MAX_RUNS', async () => {
    for (const [collection, env] of [
      ['net_runs_once', {}],
      ['net_runs_once_capped', { LEASECRON_NET_TICK_NET_MAX_RUNS: '5' }],
    ] as const) {
      const ledger = new MongoRunLedger(db, { collection })
      await ledger.ensureIndexes()
      await recorded(ledger, 0, 'ok')
      const { net, told } = tellingNet()
      const commands: string[] = []
      const count = (event: { command: Record<string, unknown>; commandName: string }) => {
        if (event.command[event.commandName] === collection) commands.push(event.commandName)
      }
      client.on('commandStarted', count)
      const result = await runOnce(onceSpec(configOf(net, env).nets[0]!, new Date(at(1)), { ledger }))
      client.off('commandStarted', count)
      expect(result.outcome).toBe('ran')
      expect(told[0]?.previous, `${collection}: the pass was not told the slot before it`).toMatchObject({
        slot: at(0),
        outcome: 'ok',
      })
      // insert + delete: the claim (and its superseded account); find: the look; update: the end; find:
      // the first pass's prune (nothing past LEASECRON_RUN_HISTORY to delete). What a `once` sent before
      // its pass was told its history.
      const tally = Object.fromEntries(['insert', 'delete', 'find', 'update'].map((n) => [n, 0]))
      for (const name of commands) tally[name] = (tally[name] ?? 0) + 1
      expect(tally, `${collection}: a once sent the ledger another command`).toEqual({
        insert: 1,
        delete: 1,
        find: 2,
        update: 1,
      })
    }
  }, 30_000)
})
