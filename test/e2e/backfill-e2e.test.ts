/**
 * `leasecron backfill` on the built worker, the sandbox forge and the run's real Mongo: a range's slots
 * listed (`--dry-run`, across a daylight-saving change) and run oldest first under one term — a slot that
 * ran is skipped, a slot recorded missed runs, running it again runs nothing, a failed slot does not stop
 * the rest, a held lease runs nothing here but leaves a request for its holder (one at a time, cancelled
 * with --cancel), a signal aborts the slot in flight — and every refusal of bad input
 * with its message.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MongoRunLedger, MongoStore } from '../../src/index.js'
import { countRequests } from '../../src/sandbox/sandbox-stats.js'
import { useE2eSandbox } from '../support/e2e-sandbox.js'
import { mongoServer } from '../support/mongo.js'
import { MAIN, startWorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/backfill-nets.mjs', import.meta.url))
const HOUR = 3_600_000
const e2e = useE2eSandbox(7)
let client: MongoClient
let databases = 0
const created: string[] = []

beforeAll(async () => {
  client = await new MongoClient(mongoServer().url).connect()
})
afterAll(async () => {
  for (const db of created)
    await client
      ?.db(db)
      .dropDatabase()
      .catch(() => undefined)
  await client?.close()
})

function env(extra: Record<string, string> = {}): Record<string, string> {
  const db = `backfill_${Date.now().toString(36)}_${++databases}`
  created.push(db)
  return { ...e2e.githubEnv(), MONGO_URI: mongoServer().url, MONGO_DB: db, ...extra }
}

/** Whole hours a few days back, so every slot is due whatever today is. */
function pastHours(count: number): Date[] {
  const start = Math.floor(Date.now() / HOUR) * HOUR - 5 * 24 * HOUR
  return Array.from({ length: count }, (_, i) => new Date(start + i * HOUR))
}

interface Ran {
  code: number | null
  stdout: string
  stderr: string
}

/** `leasecron backfill backfill-net …` to its end, stdout and stderr apart. */
function backfill(args: string[], environment: Record<string, string>): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'backfill', 'backfill-net', ...args, '--config', NETS],
      { env: { PATH: process.env.PATH ?? '', ...environment }, timeout: 90_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error.code as number | null) ?? null) : 0, stdout, stderr }),
    )
  })
}

/** The JSON log lines a run wrote on stderr that say a pass started. */
function passStarts(ran: Ran): string[] {
  return ran.stderr
    .split('\n')
    .filter((l) => l.includes('"event":"pass-start"'))
    .map((l) => (JSON.parse(l) as { slot: string }).slot)
}

/** `leasecron status` (text) on `environment`'s store. */
function statusOf(environment: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, 'status', '--config', NETS],
      { env: { PATH: process.env.PATH ?? '', ...environment }, timeout: 60_000 },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    )
  })
}

function range(slots: Date[]): string[] {
  return ['--from', slots[0]!.toISOString(), '--to', slots[slots.length - 1]!.toISOString()]
}

describe('leasecron backfill --dry-run', () => {
  it('with --json prints only the UTC instants on stdout, each change of Berlin’s clocks as the worker fires it', async () => {
    const berlin = {
      LEASECRON_NET_BACKFILL_NET_SCHEDULE: '*/30 * * * *',
      LEASECRON_NET_BACKFILL_NET_TIME_ZONE: 'Europe/Berlin',
    }
    // No Mongo and no forge: a dry run opens nothing.
    const ran = await backfill(
      ['--from', '2026-10-25T00:00:00Z', '--to', '2026-10-25T01:30:00Z', '--dry-run', '--json'],
      berlin,
    )
    expect(ran.code, ran.stderr).toBe(0)
    const lines = ran.stdout.trim().split('\n')
    expect(lines, 'something besides the JSON answer was printed on stdout').toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toEqual({
      net: 'backfill-net',
      schedule: '*/30 * * * *',
      timeZone: 'Europe/Berlin',
      from: '2026-10-25T00:00:00.000Z',
      to: '2026-10-25T01:30:00.000Z',
      // 02:00 and 02:30 local, twice: the repeated hour runs by elapsed time.
      slots: [
        '2026-10-25T00:00:00.000Z',
        '2026-10-25T00:30:00.000Z',
        '2026-10-25T01:00:00.000Z',
        '2026-10-25T01:30:00.000Z',
      ],
    })
  }, 60_000)

  it('without --json lists each slot as local time with its offset beside its UTC instant', async () => {
    const berlin = {
      LEASECRON_NET_BACKFILL_NET_SCHEDULE: '30 2 * * *',
      LEASECRON_NET_BACKFILL_NET_TIME_ZONE: 'Europe/Berlin',
    }
    const ran = await backfill(
      ['--from', '2026-03-28T00:00:00Z', '--to', '2026-03-30T12:00:00Z', '--dry-run'],
      berlin,
    )
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stdout).toMatch(
      /backfill-net: 3 slots of "30 2 \* \* \*" in Europe\/Berlin from 2026-03-28T00:00:00Z to 2026-03-30T12:00:00Z \(dry run: nothing runs\)/,
    )
    expect(ran.stdout).toMatch(/2026-03-29 03:00 \+02:00\s+2026-03-29T01:00:00Z/)
  }, 60_000)

  it('with MONGO_URI marks the slots already recorded, which a run skips, and not those recorded missed', async () => {
    const environment = env()
    const ledger = new MongoRunLedger(client.db(environment.MONGO_DB!))
    const [before, ran, open, missed, fresh] = pastHours(5)
    const earlier = { net: 'backfill-net', owner: 'earlier-worker-0123456789', fence: 1 }
    const finished = async (slot: Date) => {
      expect(await ledger.claim({ ...earlier, slot, startedAt: slot })).toBe(true)
      const finish = { finishedAt: slot, outcome: 'ok' as const }
      expect(await ledger.finish('backfill-net', slot, earlier.owner, 1, finish)).toBe(true)
    }
    // Before the range: not one of its slots, though the ledger's read reaches it.
    await finished(before!)
    await finished(ran!)
    expect(await ledger.claim({ ...earlier, slot: open!, startedAt: open! })).toBe(true)
    expect(await ledger.account({ ...earlier, slot: missed!, at: missed!, outcome: 'missed' })).toBe(true)
    // A manual run asked for at the slot's very instant is another record: the scheduled slot still runs.
    expect(await ledger.claim({ ...earlier, slot: fresh!, startedAt: fresh!, manual: true })).toBe(true)
    const asJson = await backfill([...range([ran!, fresh!]), '--dry-run', '--json'], environment)
    expect(asJson.code, asJson.stderr).toBe(0)
    expect(
      JSON.parse(asJson.stdout).recorded,
      'the dry run hid which slots a run would skip, or named one a run takes over or one outside the range',
    ).toEqual([
      { slot: ran!.toISOString(), outcome: 'ok' },
      { slot: open!.toISOString(), outcome: 'running' },
    ])
    const asText = await backfill([...range([ran!, fresh!]), '--dry-run'], environment)
    expect(asText.code, asText.stderr).toBe(0)
    expect(asText.stdout).toContain('4 slots')
    expect(asText.stdout).toContain('2 already recorded, which a run skips')
    // A slot's row: indented, its UTC instant in the second column (the heading names the range's ends).
    const row = (slot: Date) =>
      asText.stdout.split('\n').find((l) => l.startsWith('  ') && l.includes(slot.toISOString().slice(0, 19)))
    expect(row(ran!)).toMatch(/\(recorded ok: skipped\)$/)
    expect(row(open!)).toMatch(/\(recorded running: skipped\)$/)
    expect(row(missed!), 'a slot recorded missed runs, yet the dry run said it is skipped').not.toMatch(
      /recorded/,
    )
    expect(row(fresh!), 'a manual run at the slot’s instant was taken for the slot').not.toMatch(/recorded/)
    const runs = await ledger.history('backfill-net', 10)
    expect(runs, 'the dry run wrote to the ledger').toHaveLength(5)
    // A record of the net the ledger cannot read is named, not passed over as a slot free to run.
    await client
      .db(environment.MONGO_DB!)
      .collection<{ _id: string }>('net_runs')
      .insertOne({ _id: 'backfill-net@garbled', net: 'backfill-net', slot: 'yesterday' } as never)
    const withBad = await backfill([...range([ran!, fresh!]), '--dry-run'], environment)
    expect(withBad.code, withBad.stderr).toBe(0)
    expect(withBad.stderr, 'an unreadable ledger record went unsaid').toMatch(
      /^leasecron backfill: .*backfill-net@garbled/m,
    )
  }, 60_000)

  it('says which store did not answer when MONGO_URI points at nothing, and exits 1', async () => {
    const ran = await backfill([...range(pastHours(2)), '--dry-run'], {
      ...env(),
      MONGO_URI: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=2000',
    })
    expect(ran.code, ran.stdout).toBe(1)
    expect(ran.stderr).toMatch(/leasecron backfill --dry-run: the run ledger did not answer: /)
  }, 60_000)
})

describe('leasecron backfill', () => {
  it('runs a range oldest first, skipping a slot that ran and running one recorded missed; again, it runs nothing', async () => {
    const environment = env()
    const db = client.db(environment.MONGO_DB!)
    const ledger = new MongoRunLedger(db)
    const [first, ran, missed] = pastHours(3)
    const earlier = { net: 'backfill-net', owner: 'earlier-worker-0123456789', fence: 1 }
    expect(await ledger.claim({ ...earlier, slot: ran!, startedAt: ran! })).toBe(true)
    expect(
      await ledger.finish('backfill-net', ran!, earlier.owner, 1, { finishedAt: ran!, outcome: 'ok' }),
    ).toBe(true)
    expect(await ledger.account({ ...earlier, slot: missed!, at: missed!, outcome: 'missed' })).toBe(true)
    e2e.sandbox.resetStats()

    const result = await backfill([...range([first!, missed!]), '--json'], environment)
    expect(result.code, result.stderr.slice(-2000)).toBe(0)
    const lines = result.stdout.trim().split('\n')
    expect(lines, 'stdout carried more than the summary').toHaveLength(1)
    const summary = JSON.parse(lines[0]!)
    expect(summary).toMatchObject({ net: 'backfill-net', end: 'done', counts: { ok: 2, 'slot-taken': 1 } })
    expect(summary.slots.map((s: { outcome: string }) => s.outcome)).toEqual(['ok', 'slot-taken', 'ok'])
    expect(passStarts(result), 'the passes did not run oldest first, or ran a recorded slot').toEqual([
      first!.toISOString(),
      missed!.toISOString(),
    ])
    expect(result.stderr).toMatch(
      new RegExp(`^\\[2/3\\] ${ran!.toISOString().replace('.000Z', 'Z')} slot-taken \\d+\\.\\ds$`, 'm'),
    )
    expect(
      countRequests(e2e.sandbox.stats(), { route: 'GET /rate_limit' }),
      'the forge saw other than two passes',
    ).toBe(2)
    expect(await ledger.get('backfill-net', missed!)).toMatchObject({
      owner: summary.owner,
      fence: summary.fence,
      outcome: 'ok',
    })
    expect(await ledger.get('backfill-net', ran!)).toMatchObject({ owner: earlier.owner, outcome: 'ok' })

    const again = await backfill(range([first!, missed!]), environment)
    expect(again.code, again.stderr.slice(-2000)).toBe(0)
    expect(passStarts(again), 'running the backfill again ran a slot twice').toEqual([])
    expect(again.stdout).toMatch(/backfill-net: backfill of 3 slots as \S+ \(fence \d+\): 3 slot-taken/)
  }, 120_000)

  it('asks for --yes above 100 slots, saying how many, and runs them all with it', async () => {
    const environment = env()
    const slots = pastHours(101)
    const refused = await backfill(range(slots), environment)
    expect(refused.code).toBe(64)
    expect(refused.stderr).toMatch(/the range holds 101 slots, more than 100: add --yes to run them all/)
    const confirmed = await backfill([...range(slots), '--yes', '--json'], environment)
    expect(confirmed.code, confirmed.stderr.slice(-2000)).toBe(0)
    expect(JSON.parse(confirmed.stdout).counts).toMatchObject({ ok: 101, 'not-run': 0 })
    const runs = await new MongoRunLedger(client.db(environment.MONGO_DB!)).history('backfill-net', 200)
    expect(
      runs.filter((r) => r.outcome === 'ok'),
      'the ledger does not hold every slot once',
    ).toHaveLength(101)
  }, 180_000)

  it('records a failed slot, runs the next and exits 1, saying where the errors are', async () => {
    const slots = pastHours(3)
    const ran = await backfill(
      range(slots),
      env({ BACKFILL_FAIL_SLOTS: slots[1]!.toISOString(), LEASECRON_NET_BACKFILL_NET_RETRIES: '0' }),
    )
    expect(ran.code).toBe(1)
    expect(ran.stderr).toMatch(/^\[2\/3\] \S+ failed \d+\.\ds: slot \S+ fails on purpose$/m)
    expect(ran.stderr).toMatch(/^\[3\/3\] \S+ ok \d+\.\ds$/m)
    expect(ran.stdout).toMatch(
      /2 ok, 1 failed\nFailed slots are recorded with their errors \(leasecron history shows them\)\./,
    )
  }, 60_000)

  it('leaves a request for the owner holding the lease (exit 0), refuses a second naming it (75), and --cancel ends it', async () => {
    const environment = env()
    const store = new MongoStore(client.db(environment.MONGO_DB!))
    expect(await store.acquire('backfill-net', 'a-running-worker-0123', new Date(), 60_000)).toBeTruthy()
    const slots = pastHours(2)
    const ran = await backfill([...range(slots), '--by', 'ann', '--json'], environment)
    expect(ran.code, ran.stderr).toBe(0)
    expect(passStarts(ran), 'the command ran slots while a worker held the net').toEqual([])
    const answer = JSON.parse(ran.stdout)
    expect(answer).toMatchObject({
      net: 'backfill-net',
      end: 'requested',
      holder: 'a-running-worker-0123',
      backfill: { total: 2, done: 0, by: 'ann', from: slots[0]!.toISOString() },
    })
    const second = await backfill(range(pastHours(3)), environment)
    expect(second.code, 'a second backfill replaced the running one').toBe(75)
    expect(second.stderr).toMatch(
      new RegExp(
        `a backfill requested at ${answer.backfill.at} is still running .*0 of 2 done.*leasecron backfill --cancel backfill-net`,
      ),
    )
    const status = await statusOf(environment)
    expect(status, 'status did not show the request').toMatch(
      /backfill-net: backfill running: 0 of 2 done, 2 left, 0 failed \(requested by ann/,
    )
    const cancelled = await backfill(['--cancel', '--by', 'bob'], environment)
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect(cancelled.stdout).toMatch(/backfill-net: backfill cancelled with 0 of 2 slots done/)
    const again = await backfill(['--cancel'], environment)
    expect(again.stdout).toMatch(/no backfill is running: nothing to cancel/)
    const withRange = await backfill(['--cancel', ...range(slots)], environment)
    expect(withRange.code).toBe(64)
    expect(withRange.stderr).toMatch(
      /--cancel ends the running backfill request; --from, --to: expected none with it/,
    )
  }, 90_000)

  it('on SIGTERM aborts the slot in flight, runs no more, releases the lease and exits 130', async () => {
    const environment = env({ BACKFILL_PASS_MS: '60000' })
    const slots = pastHours(3)
    const w = startWorkerProcess(
      ['backfill', 'backfill-net', ...range(slots), '--json', '--config', NETS],
      environment,
    )
    await w.waitFor((l) => l.event === 'pass-start', 30_000, 'the first pass starting')
    w.child.kill('SIGTERM')
    expect((await w.exited).code, 'an interrupted backfill should exit 130').toBe(130)
    const summary = w.lines.find((l) => typeof l.end === 'string')
    expect(summary).toMatchObject({ end: 'interrupted', counts: { aborted: 1, 'not-run': 2 } })
    const ledger = new MongoRunLedger(client.db(environment.MONGO_DB!))
    expect((await ledger.get('backfill-net', slots[0]!))?.outcome).toBe('aborted')
    expect(await ledger.get('backfill-net', slots[1]!), 'a slot after the signal was claimed').toBeUndefined()
    const leases = await new MongoStore(client.db(environment.MONGO_DB!)).list()
    expect(
      leases.filter((l) => l.owner && (l.expiresAt?.getTime() ?? 0) > Date.now()),
      'the interrupted backfill left its lease held',
    ).toEqual([])
  }, 60_000)

  it('refuses bad input with exit 64, each with its message, and says when a range has no slot', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--from', 'yesterday', '--to', '2026-01-01T00:00:00Z'],
        /--from: expected an ISO 8601 instant with a time zone \(e\.g\. 2026-09-30T15:05:00Z\); got "yesterday"/,
      ],
      [['--from', '2026-01-01T00:00:00Z'], /--to is required: the last instant of the range/],
      [
        ['--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'],
        /--from 2026-01-02T00:00:00\.000Z is after --to 2026-01-01T00:00:00\.000Z/,
      ],
      [
        ['--from', '2026-01-01T00:00:00Z', '--to', '2999-01-01T00:00:00Z'],
        /--to 2999-01-01T00:00:00\.000Z is in the future .*slots not yet due cannot be backfilled/,
      ],
    ]
    const runs = await Promise.all(cases.map(([args]) => backfill(args, {})))
    runs.forEach((ran, i) => {
      expect(ran.code, `${cases[i]![0].join(' ')} was not refused as usage`).toBe(64)
      expect(ran.stderr).toMatch(cases[i]![1])
    })
    const unknown = startWorkerProcess(
      [
        'backfill',
        'nope',
        '--from',
        '2026-01-01T00:00:00Z',
        '--to',
        '2026-01-01T00:00:00Z',
        '--config',
        NETS,
      ],
      {},
    )
    expect((await unknown.exited).code).toBe(64)
    expect(unknown.text.join('\n')).toMatch(/leasecron backfill: expected one of backfill-net; got nope/)
    const none = await backfill(['--from', '2026-01-01T00:00:01Z', '--to', '2026-01-01T00:59:59Z'], {})
    expect(none.code).toBe(0)
    expect(none.stdout).toMatch(
      /backfill-net: no slot of "0 \* \* \* \*" in UTC from 2026-01-01T00:00:01Z to 2026-01-01T00:59:59Z; nothing to run/,
    )
  }, 90_000)
})
