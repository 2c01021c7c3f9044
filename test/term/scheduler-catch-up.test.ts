/**
 * The election's catch-up through the real scheduler (runNetCampaign), on MemoryStore and on the test
 * Mongo (MongoStore and MongoRunLedger): replicas were down for 21 minute slots, then a holder is elected.
 * Time is a DrivenClock standing still at the election (no tick, no renewal fires unless the test says), so
 * what runs is the catch-up alone, while the Mongo driver keeps its real timers.
 */
import { describe, expect, it } from 'vitest'
import {
  type LeaseStore,
  loadConfig,
  MemoryRunLedger,
  MemoryStore,
  MongoRunLedger,
  MongoStore,
} from '../../src/index.js'
import type { RunLedger, RunRecord } from '../../src/runs/run-ledger.js'
import { createLogger } from '../../src/observe/logger.js'
import { runNetCampaign } from '../../src/term/net-runner.js'
import { DrivenClock } from '../support/driven-clock.js'
import { useTestDatabase } from '../support/mongo.js'
import { type PassRecord, recordingNet, TEST_LEASES, TICK_LEASE } from '../support/test-nets.js'
import { campaignOptions } from '../support/term-specs.js'

const NET = 'tick-net'
const ELECTION = '2026-10-01T15:30:20.000Z'
/** The minute slot `15:mm` of the election's day. */
const minute = (mm: number) => new Date(`2026-10-01T15:${String(mm).padStart(2, '0')}:00.000Z`)
const minutes = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
/** Every minute, ran 15:00–15:09, then down until the election at 15:30:20: 15:10–15:30 are due unrecorded. */
const ALL = { CATCH_UP: 'all', CATCH_UP_WINDOW: '10m', CATCH_UP_MAX: '8' }
/**
 * The seed's pace of a minute net (TTL 3 min, retry 1 min: takeover bound TTL + 2 × retry = 5 min), which
 * these cases' instants were written for; a variable set to '' leaves the shipped default instead.
 */
const SEED_PACE = { TTL_MS: '180000', RETRY_MS: '60000' }

const mongo = await useTestDatabase('scheduler_catch_up')
let collections = 0

interface World {
  store: LeaseStore
  ledger: RunLedger
}

const twins: Array<{ twin: string; world: () => Promise<World> }> = [
  { twin: 'MemoryStore', world: async () => ({ store: new MemoryStore(), ledger: new MemoryRunLedger() }) },
  {
    twin: 'the test Mongo',
    world: async () => {
      const n = ++collections
      const ledger = new MongoRunLedger(mongo.db, { collection: `net_runs_${n}` })
      await ledger.ensureIndexes()
      return { store: new MongoStore(mongo.db, { collection: `leases_${n}` }), ledger }
    },
  },
]

/** The ledger as it was before the outage: 15:00–15:09 ran, ok. */
async function ranBefore(ledger: RunLedger): Promise<void> {
  for (const mm of minutes(0, 9)) {
    const slot = minute(mm)
    await ledger.claim({ net: NET, slot, owner: 'before', fence: 1, startedAt: slot })
    await ledger.finish(NET, slot, 'before', 1, { finishedAt: slot, outcome: 'ok' })
  }
}

async function until<T>(what: string, probe: () => T | undefined, ms = 20_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    const found = probe()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`${what} did not happen within ${ms} ms`)
}

/** One replica's campaign for the net, on `world` and `clock`; its catch-up line is awaited by `summary`. */
function replica(
  world: World,
  clock: DrivenClock,
  owner: string,
  variables: Record<string, string>,
  /** Told each pass's number; a pass it answers `true` for fails. */
  onPass?: (pass: number) => unknown,
  runHistory = 1000,
) {
  const { net, passes } = recordingNet({
    schedule: '* * * * *',
    fail: (n) => onPass?.(n) === true,
  })
  const env = Object.fromEntries(
    Object.entries({ ...SEED_PACE, ...variables })
      .filter(([, v]) => v !== '')
      .map(([k, v]) => [`LEASECRON_NET_TICK_NET_${k}`, v]),
  )
  const loaded = loadConfig(env, [net], TEST_LEASES)
  if (!loaded.ok) throw new Error(`test net configuration rejected: ${JSON.stringify(loaded.issues)}`)
  const lines: Record<string, unknown>[] = []
  const log = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    pretty: false,
  })
  const stop = new AbortController()
  const done = runNetCampaign(
    campaignOptions(loaded.config.nets[0]!, { ...world, runHistory, owner, log, clock, signal: stop.signal }),
  )
  const summary = () =>
    until(`${owner}'s catch-up line`, () => lines.find((l) => String(l.msg).startsWith('catch-up:')))
  const finish = async () => {
    stop.abort()
    await done
  }
  return { passes, summary, finish }
}

const slotsOf = (passes: PassRecord[]) => passes.map((p) => p.slot?.slice(11, 16))
const hhmm = (mms: number[]) => mms.map((mm) => `15:${String(mm).padStart(2, '0')}`)

/** Each minute 15:00–15:30 with its one record's outcome (and its reason for a missed one). */
async function ledgerByMinute(ledger: RunLedger): Promise<Array<[string, string | undefined]>> {
  const runs: RunRecord[] = (await ledger.history(NET, 1000)).reverse()
  return runs.map((r) => [r.slot.toISOString().slice(11, 16), r.outcome])
}

/** The holder of 15:10 (fence 0) was killed mid-pass: its claim has no end. */
async function cutOff(
  ledger: RunLedger,
  slot = minute(10),
  options: { manual?: boolean } = {},
): Promise<void> {
  await ledger.claim({ net: NET, slot, owner: 'killed', fence: 0, startedAt: slot, ...options })
}

/** Terms that came and went on the net's lease, so the next election's fence is `fences + 1`. */
async function pastTerms(store: LeaseStore, fences: number): Promise<void> {
  for (let i = 0; i < fences; i++) {
    const grant = await store.acquire(TICK_LEASE.name, `past-${i}`, new Date(ELECTION), 60_000)
    if (grant) await store.release(grant)
  }
}

/** The successor of 15:10's killed holder, elected 15:13:50: 15:10–15:13 are a takeover's gap. */
const AFTER_KILL = '2026-10-01T15:13:50.000Z'

describe.each(twins)('the election’s catch-up on $twin', ({ world: makeWorld }) => {
  it('with CATCH_UP=all runs each window slot once, oldest first, up to the cap, and records the rest missed', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const alpha = replica(world, new DrivenClock(ELECTION), 'alpha', ALL)
    const line = await alpha.summary()
    expect(slotsOf(alpha.passes), 'the window slots did not run once each, oldest first').toEqual(
      hhmm(minutes(23, 30)),
    )
    expect(line).toMatchObject({ ran: 8, missed: 13, left: 0, catchUp: 'all' })
    expect(String(line.msg)).toBe('catch-up: ran 8, missed 13')
    await alpha.finish()
    const byMinute = await ledgerByMinute(world.ledger)
    expect(byMinute, 'a scheduled slot has no record, or more than one').toEqual([
      ...minutes(0, 9).map((mm) => [hhmm([mm])[0], 'ok']),
      ...minutes(10, 22).map((mm) => [hhmm([mm])[0], 'missed']),
      ...minutes(23, 30).map((mm) => [hhmm([mm])[0], 'ok']),
    ])
    const reasons = await Promise.all([minute(15), minute(21)].map((slot) => world.ledger.get(NET, slot)))
    expect(reasons.map((r) => r?.error)).toEqual([
      'outside the catch-up window of 10m (CATCH_UP_WINDOW)',
      'over the catch-up cap of 8 slots (CATCH_UP_MAX)',
    ])
  })

  it('with CATCH_UP=latest runs the newest due slot and records the older ones missed', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const alpha = replica(world, new DrivenClock(ELECTION), 'alpha', { CATCH_UP: 'latest' })
    expect(await alpha.summary()).toMatchObject({ ran: 1, missed: 20 })
    expect(slotsOf(alpha.passes)).toEqual(['15:30'])
    await alpha.finish()
    expect((await ledgerByMinute(world.ledger)).slice(10)).toEqual([
      ...minutes(10, 29).map((mm) => [hhmm([mm])[0], 'missed']),
      ['15:30', 'ok'],
    ])
  })

  it('after a takeover at the shipped pace, runs every slot that fell due unheld, oldest first (CATCH_UP default)', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    // The holder of 15:09 died; a successor is elected at 15:11:20, 80 s after 15:10, the oldest slot due
    // unheld — within TTL 30 s + 2 × RETRY 30 s (90 s), the shipped pace of a minute net.
    const shipped = { TTL_MS: '', RETRY_MS: '' }
    const alpha = replica(world, new DrivenClock('2026-10-01T15:11:20.000Z'), 'alpha', shipped)
    expect(await alpha.summary(), 'a slot of the takeover’s gap was not run').toMatchObject({
      ran: 2,
      missed: 0,
    })
    expect(slotsOf(alpha.passes)).toEqual(['15:10', '15:11'])
    await alpha.finish()
    expect((await ledgerByMinute(world.ledger)).slice(10)).toEqual(
      hhmm(minutes(10, 11)).map((m) => [m, 'ok']),
    )
  })

  it('with CATCH_UP=none runs nothing and records every due slot missed', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const alpha = replica(world, new DrivenClock(ELECTION), 'alpha', { CATCH_UP: 'none' })
    expect(await alpha.summary()).toMatchObject({ ran: 0, missed: 21 })
    await alpha.finish()
    expect(alpha.passes).toEqual([])
    expect((await ledgerByMinute(world.ledger)).slice(10)).toEqual(
      minutes(10, 30).map((mm) => [hhmm([mm])[0], 'missed']),
    )
  })

  // Well-formed runs dated 2030 (another program's, or by hand) sort first in the ledger: read without
  // `until` they filled the look back, the catch-up saw no recorded slot and left 15:10–15:11 unaccounted.
  it('is not misled by runs dated years ahead: it still sees the takeover’s gap and runs its slots in order', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const lookback = 20
    for (let i = 0; i < lookback; i++) {
      const slot = new Date(Date.UTC(2030, 0, 1, 0, i))
      await world.ledger.claim({ net: NET, slot, owner: 'ahead', fence: 1, startedAt: slot })
      await world.ledger.finish(NET, slot, 'ahead', 1, { finishedAt: slot, outcome: 'ok' })
    }
    const clock = new DrivenClock('2026-10-01T15:12:20.000Z')
    const alpha = replica(world, clock, 'alpha', { CATCH_UP: 'latest' }, undefined, lookback)
    // 15:10–15:12 fell due within a takeover's bound of the election (TTL 3 min + 2 × 1 min): all run.
    expect(await alpha.summary(), 'the 2030 runs hid the gap’s slots').toMatchObject({ ran: 3, missed: 0 })
    await alpha.finish()
    expect(slotsOf(alpha.passes)).toEqual(['15:10', '15:11', '15:12'])
  })

  it('re-runs and re-records nothing at a second election right after', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const clock = new DrivenClock(ELECTION)
    const alpha = replica(world, clock, 'alpha', ALL)
    await alpha.summary()
    await alpha.finish()
    const before = await world.ledger.history(NET, 1000)
    clock.jump(5_000)
    const beta = replica(world, clock, 'beta', ALL)
    expect(await beta.summary(), 'the second election did something').toMatchObject({
      ran: 0,
      missed: 0,
      taken: 0,
    })
    await beta.finish()
    expect(beta.passes, 'a slot ran again').toEqual([])
    expect(await world.ledger.history(NET, 1000), 'the ledger changed').toEqual(before)
  })

  it('leaves the rest of a catch-up its term stepped down in to the next holder, who runs each slot once', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const clock = new DrivenClock(ELECTION)
    // The third catch-up pass stalls its process past the term's step-down instant (monotonic time only).
    const alpha = replica(world, clock, 'alpha', ALL, (pass) => {
      if (pass === 3) clock.jump(3_600_000, { wall: false })
    })
    const stepped = await alpha.summary()
    expect(stepped, 'the catch-up went on past its term’s step-down instant').toMatchObject({
      ran: 3,
      missed: 13,
      left: 5,
    })
    expect(String(stepped.msg)).toBe('catch-up: ran 3, missed 13, 5 left for the next holder')
    clock.fireDue()
    await alpha.finish()
    const beta = replica(world, clock, 'beta', ALL)
    expect(await beta.summary()).toMatchObject({ ran: 5, missed: 0, left: 0 })
    await beta.finish()
    expect(slotsOf(alpha.passes)).toEqual(hhmm([23, 24, 25]))
    expect(slotsOf(beta.passes)).toEqual(hhmm(minutes(26, 30)))
    const byMinute = await ledgerByMinute(world.ledger)
    expect(
      byMinute.map(([hm]) => hm),
      'a slot has no record or two',
    ).toEqual(hhmm(minutes(0, 30)))
    expect(byMinute.slice(23).map(([, outcome]) => outcome)).toEqual(Array(8).fill('ok'))
  })
  it('with RETRIES runs again, first, the pass its killed holder left unfinished, as the same slot under its own fence', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger)
    const alpha = replica(world, new DrivenClock(AFTER_KILL), 'alpha', { RETRIES: '1' })
    const line = await alpha.summary()
    expect(line, 'the cut-off pass was not run again').toMatchObject({ ran: 4, retaken: 1, missed: 0 })
    expect(String(line.msg)).toBe(
      'catch-up: ran 4 (1 of them cut off with their holder, run again), missed 0',
    )
    expect(slotsOf(alpha.passes)).toEqual(['15:10', '15:11', '15:12', '15:13'])
    await alpha.finish()
    expect(await world.ledger.get(NET, minute(10)), 'the run again is not the successor’s').toMatchObject({
      owner: 'alpha',
      fence: 1,
      outcome: 'ok',
      retakes: 1,
    })
    expect((await ledgerByMinute(world.ledger)).slice(10)).toEqual(
      hhmm(minutes(10, 13)).map((m) => [m, 'ok']),
    )
  })

  it('runs again a long pass cut off minutes after its slot, with the gap its holder’s end left', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger) // 15:10's pass ran on; the holder let 15:11–15:15 go as overlap, then died
    for (const mm of minutes(11, 15)) {
      const slot = minute(mm)
      await world.ledger.claim({ net: NET, slot, owner: 'killed', fence: 0, startedAt: slot })
      await world.ledger.finish(NET, slot, 'killed', 0, { finishedAt: slot, outcome: 'skipped', attempts: 0 })
    }
    const alpha = replica(world, new DrivenClock('2026-10-01T15:19:30.000Z'), 'alpha', { RETRIES: '1' })
    expect(await alpha.summary(), 'a cut-off pass older than the takeover bound was let go').toMatchObject({
      ran: 5,
      retaken: 1,
      missed: 0,
    })
    await alpha.finish()
    expect(slotsOf(alpha.passes)).toEqual(hhmm([10, 16, 17, 18, 19]))
  })

  it('runs again a long pass cut off before any slot fell due unheld: the cut-off is the whole gap', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger)
    for (const mm of minutes(11, 15)) {
      const slot = minute(mm)
      await world.ledger.claim({ net: NET, slot, owner: 'killed', fence: 0, startedAt: slot })
      await world.ledger.finish(NET, slot, 'killed', 0, { finishedAt: slot, outcome: 'skipped', attempts: 0 })
    }
    const alpha = replica(world, new DrivenClock('2026-10-01T15:15:40.000Z'), 'alpha', { RETRIES: '1' })
    expect(await alpha.summary(), 'the cut-off pass alone was let go').toMatchObject({ ran: 1, retaken: 1 })
    await alpha.finish()
    expect(slotsOf(alpha.passes)).toEqual(['15:10'])
  })

  it('runs again a new net’s first pass, cut off with its holder, though it is the only record', async () => {
    const world = await makeWorld()
    await cutOff(world.ledger)
    const alpha = replica(world, new DrivenClock(AFTER_KILL), 'alpha', { RETAKES: '1' })
    expect(await alpha.summary(), 'the oldest record, cut off, was not looked at').toMatchObject({
      ran: 4,
      retaken: 1,
    })
    await alpha.finish()
    expect(slotsOf(alpha.passes)).toEqual(hhmm(minutes(10, 13)))
  })

  it.each<{ case: string; variables: Record<string, string> }>([
    { case: 'by default (RETRIES 0): no slot’s pass runs twice', variables: {} },
    { case: 'with RETAKES=0, though the net retries', variables: { RETRIES: '2', RETAKES: '0' } },
  ])(
    'records the cut-off pass aborted $case, and runs only the slots without a record',
    async ({ variables }) => {
      const world = await makeWorld()
      await ranBefore(world.ledger)
      await cutOff(world.ledger)
      const alpha = replica(world, new DrivenClock(AFTER_KILL), 'alpha', variables)
      expect(await alpha.summary()).toMatchObject({ ran: 3, retaken: 0, missed: 0 })
      await alpha.finish()
      expect(slotsOf(alpha.passes), 'a net that did not ask for it had its cut-off pass run again').toEqual(
        hhmm(minutes(11, 13)),
      )
      expect(await world.ledger.get(NET, minute(10))).toMatchObject({ owner: 'killed', outcome: 'aborted' })
    },
  )

  it('gives a run again the retries the cut-off attempt left: RETRIES 1, so a failing retake is not retried', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger)
    // The first pass of the term is the retake of 15:10; it fails. A retry (due at 15:13:51, before the
    // next slot) would wait on the standing clock, and the catch-up would never end.
    const alpha = replica(
      world,
      new DrivenClock(AFTER_KILL),
      'alpha',
      { RETRIES: '1', RETRY_BACKOFF: '1s' },
      (n) => n === 1,
    )
    expect(await alpha.summary(), 'the retake was retried past the net’s retries').toMatchObject({
      ran: 4,
      retaken: 1,
    })
    await alpha.finish()
    expect(await world.ledger.get(NET, minute(10))).toMatchObject({
      outcome: 'failed',
      attempts: 1,
      retakes: 1,
    })
  })

  it('records aborted a pass cut off as often as RETAKES allows, so a pass that kills its process stops', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger)
    await pastTerms(world.store, 2) // the election's fence is 3
    const taken = { net: NET, slot: minute(10), owner: 'retook', fence: 2, startedAt: minute(12) }
    expect(await world.ledger.retake(taken), 'the first retake was refused').toBe(true)
    const alpha = replica(world, new DrivenClock(AFTER_KILL), 'alpha', { RETRIES: '1' })
    expect(await alpha.summary()).toMatchObject({ ran: 3, retaken: 0 })
    await alpha.finish()
    expect(slotsOf(alpha.passes), 'a pass cut off twice ran a third time').toEqual(hhmm(minutes(11, 13)))
    expect(await world.ledger.get(NET, minute(10))).toMatchObject({ owner: 'retook', outcome: 'aborted' })
  })

  it.each([
    {
      case: 'with CATCH_UP=none, running nothing late',
      at: AFTER_KILL,
      variables: { CATCH_UP: 'none', RETRIES: '1' },
      summary: { ran: 0, retaken: 0, missed: 3 },
      ran: [] as string[],
    },
    {
      case: 'older than an outage `latest` runs whole, running the newest slot only',
      at: ELECTION,
      variables: { CATCH_UP: 'latest', RETRIES: '1' },
      summary: { ran: 1, retaken: 0, missed: 19 },
      ran: ['15:30'],
    },
  ])('records aborted a cut-off pass the plan lets go: $case', async ({ at, variables, summary, ran }) => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    await cutOff(world.ledger)
    const alpha = replica(world, new DrivenClock(at), 'alpha', variables)
    expect(await alpha.summary()).toMatchObject(summary)
    await alpha.finish()
    expect(slotsOf(alpha.passes)).toEqual(ran)
    expect(await world.ledger.get(NET, minute(10))).toMatchObject({ owner: 'killed', outcome: 'aborted' })
  })

  it('records aborted a manual run cut off with its holder: its request was taken, an operator asks again', async () => {
    const world = await makeWorld()
    await ranBefore(world.ledger)
    const asked = new Date(minute(10).getTime() + 30_000)
    await cutOff(world.ledger, asked, { manual: true })
    const alpha = replica(world, new DrivenClock(AFTER_KILL), 'alpha', { RETRIES: '1' })
    expect(await alpha.summary()).toMatchObject({ ran: 4, retaken: 0 })
    await alpha.finish()
    expect(await world.ledger.get(NET, asked, { manual: true })).toMatchObject({
      owner: 'killed',
      outcome: 'aborted',
    })
  })
})
