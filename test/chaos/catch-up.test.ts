/**
 * Chaos on every replica at once: all of them down for several slots, then back with CATCH_UP=all. The
 * new holder's election runs each slot within the catch-up window exactly once, oldest first, and records
 * the older ones `missed`: every slot of the scenario has one ledger record with an outcome.
 */
import { MongoClient } from 'mongodb'
import { describe, expect, it } from 'vitest'
import type { LogLine } from '../support/worker-process.js'
import { mono, sleep } from './cluster.js'
import { chaosEnvironment, expectOncePerSlot, runScenario } from './scenario.js'

const { env, results } = chaosEnvironment()
const WINDOW_MS = 6_000
const DOWN_MS = 15_000
const CATCH_UP = {
  LEASECRON_NET_CHAOS_TICK_CATCH_UP: 'all',
  LEASECRON_NET_CHAOS_TICK_CATCH_UP_WINDOW: `${WINDOW_MS / 1000}s`,
  LEASECRON_NET_CHAOS_TICK_CATCH_UP_MAX: '100',
}

interface Run {
  slot: Date
  outcome?: string | null
  owner: string
}

async function ledger(url: string, db: string): Promise<Run[]> {
  const client = await new MongoClient(url, { serverSelectionTimeoutMS: 10_000 }).connect()
  try {
    const runs = client.db(db).collection<Run>('net_runs')
    return await runs.find({ net: 'chaos-tick' }).sort({ slot: 1 }).toArray()
  } finally {
    await client.close()
  }
}

describe('every replica is down for several slots', () => {
  it('comes back with CATCH_UP=all: each slot in the window runs exactly once, oldest first, and the rest are recorded missed', async () => {
    const name = 'catch-up-all'
    let summary: LogLine | undefined
    let runs: Run[] = []
    let holderOwner: string | undefined
    let holderSlots: string[] = []
    const verdict = await runScenario(name, env, results, async (run) => {
      const { cluster } = run
      for (let i = 0; i < 2; i++) await cluster.start({ env: CATCH_UP })
      await cluster.waitForHolder()
      await sleep(3_000)
      const down = mono()
      for (const w of cluster.workers) cluster.signal(w, 'SIGTERM')
      await Promise.all(cluster.workers.map((w) => w.proc.exited))
      await sleep(DOWN_MS)
      cluster.fault({ kind: `every replica down ${DOWN_MS} ms`, start: down, end: mono() })
      const back = mono()
      for (let i = 0; i < 2; i++) await cluster.start({ env: CATCH_UP })
      const holder = await cluster.waitForHolder({ after: back })
      summary = await holder.proc.waitFor(
        (l) => String(l.msg).startsWith('catch-up:'),
        20_000,
        'the new holder’s catch-up line',
      )
      await sleep(2_000)
      run.trials++
      holderOwner = holder.owner()
      holderSlots = holder.proc.lines
        .filter((l) => l.event === 'pass-start' && typeof l.slot === 'string')
        .map((l) => String(l.slot))
      runs = await ledger(env.mongo.url, cluster.db)
      run.notes = `catch-up line: ${JSON.stringify(summary)}`
    })
    expectOncePerSlot(name, results, verdict)
    expect(summary, 'the new holder logged no catch-up').toBeDefined()
    const elected = Date.parse(String(summary?.electedAt))
    const gap = runs.filter((r) => r.owner === holderOwner && r.slot.getTime() <= elected)
    const ran = gap.filter((r) => r.outcome !== 'missed')
    const missed = gap.filter((r) => r.outcome === 'missed')
    expect(missed.length, 'no slot of the outage fell outside the window').toBeGreaterThan(3)
    expect(ran.length, 'no slot of the outage ran').toBeGreaterThan(3)
    expect(summary).toMatchObject({ ran: ran.length, missed: missed.length, left: 0 })
    for (const r of ran)
      expect(
        elected - r.slot.getTime(),
        `${r.slot.toISOString()} ran though outside the window`,
      ).toBeLessThanOrEqual(WINDOW_MS)
    for (const r of missed)
      expect(
        elected - r.slot.getTime(),
        `${r.slot.toISOString()} was recorded missed inside the window`,
      ).toBeGreaterThan(WINDOW_MS)
    const ranSlots = ran.map((r) => r.slot.toISOString())
    expect(
      holderSlots.slice(0, ranSlots.length),
      'the window slots were not the holder’s first passes, oldest first',
    ).toEqual(ranSlots)
    const accounting = results.get(name)?.slotsAccounted
    expect(accounting?.missing, 'a scheduled slot has no ledger record').toEqual([])
    expect(accounting?.unfinished, 'a scheduled slot was claimed and never finished').toEqual([])
    expect(accounting?.percent).toBe(100)
  })
})
