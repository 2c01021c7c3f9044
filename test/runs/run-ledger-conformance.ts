/**
 * The one conformance suite every RunLedger runs: both twins must answer identical calls identically.
 */
import { describe, expect, it } from 'vitest'
import type { RunAccount, RunClaim, RunLedger } from '../../src/runs/run-ledger.js'
import { RunLedgerError } from '../../src/runs/run-ledger-error.js'
import { runLedgerBatchCases } from './run-ledger-batch-cases.js'

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000)

function claimOf(slotMinutes: number, extra: Partial<RunClaim> = {}): RunClaim {
  return {
    net: 'merge-gate-sweeper',
    slot: at(slotMinutes),
    owner: 'host-a-1',
    fence: 3,
    startedAt: at(slotMinutes),
    ...extra,
  }
}

/** What a server may do differently, with the reason (printed with the test's name). */
export interface RunLedgerAllowances {
  /**
   * Two retakes racing with one fence may both win: FerretDB applies an update as read-then-write. The
   * claim (a unique `_id` insert) stays exactly-once there.
   */
  racingRetakesMayBothWin?: string
}

export function runLedgerConformance(
  label: string,
  makeLedger: () => Promise<RunLedger>,
  allowances: RunLedgerAllowances = {},
): void {
  describe(`${label} run-ledger conformance`, () => {
    runLedgerBatchCases(makeLedger)
    describe('claim', () => {
      it('grants the first claim of a slot and refuses every later one, the same owner included', async () => {
        const ledger = await makeLedger()
        expect(await ledger.claim(claimOf(0))).toBe(true)
        expect(await ledger.claim(claimOf(0))).toBe(false)
        expect(await ledger.claim(claimOf(0, { owner: 'host-b-2', fence: 4 }))).toBe(false)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          ...claimOf(0),
        })
      })

      it('keeps slots of different nets and instants apart', async () => {
        const ledger = await makeLedger()
        expect(await ledger.claim(claimOf(0))).toBe(true)
        expect(await ledger.claim(claimOf(1))).toBe(true)
        expect(await ledger.claim(claimOf(0, { net: 'board-issue-sync' }))).toBe(true)
        expect(await ledger.get('board-issue-sync', at(1))).toBeUndefined()
      })

      it('keeps a manual run apart from the scheduled slot of the same instant, keyed <net>@manual@<ISO>', async () => {
        const ledger = await makeLedger()
        expect(await ledger.claim(claimOf(0))).toBe(true)
        expect(await ledger.claim(claimOf(0, { manual: true })), 'a manual run collided with a slot').toBe(
          true,
        )
        expect(await ledger.claim(claimOf(0, { manual: true })), 'one manual run ran twice').toBe(false)
        const { manual: _manual, ...scheduled } = claimOf(0)
        expect(await ledger.get('merge-gate-sweeper', at(0), { manual: true })).toEqual({
          id: 'merge-gate-sweeper@manual@2026-09-30T15:00:00.000Z',
          ...scheduled,
          manual: true,
        })
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          ...scheduled,
        })
        const finish = { finishedAt: at(1), outcome: 'ok' as const }
        expect(
          await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, finish, { manual: true }),
        ).toBe(true)
        expect(await ledger.get('merge-gate-sweeper', at(0)), 'the manual finish reached the slot').toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          ...scheduled,
        })
        const history = await ledger.history('merge-gate-sweeper', 10)
        expect(history.map((r) => [r.id, r.manual, r.outcome])).toEqual(
          expect.arrayContaining([
            ['merge-gate-sweeper@manual@2026-09-30T15:00:00.000Z', true, 'ok'],
            ['merge-gate-sweeper@2026-09-30T15:00:00.000Z', undefined, undefined],
          ]),
        )
        expect(history).toHaveLength(2)
      })

      it('gives exactly one of twenty concurrent claims of one slot the slot', async () => {
        const ledger = await makeLedger()
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => ledger.claim(claimOf(7, { owner: `host-${i}`, fence: i }))),
        )
        expect(answers.filter((a) => a).length, 'a slot claimed twice would run twice').toBe(1)
        const winner = answers.indexOf(true)
        expect(await ledger.get('merge-gate-sweeper', at(7))).toMatchObject({
          owner: `host-${winner}`,
          fence: winner,
        })
      })

      it('keeps whole milliseconds of the slot', async () => {
        const ledger = await makeLedger()
        const slot = new Date('2026-09-30T15:00:00.123Z')
        expect(await ledger.claim(claimOf(0, { slot }))).toBe(true)
        expect((await ledger.get('merge-gate-sweeper', slot))?.slot).toEqual(slot)
      })
    })

    describe('finish', () => {
      it('records the outcome, error and requests on the claim of the same owner and fence', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        const finish = {
          finishedAt: at(1),
          outcome: 'failed' as const,
          error: 'boom',
          requests: { 'merge-gate-sweeper': 4 },
        }
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, finish)).toBe(true)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          ...claimOf(0),
          ...finish,
          attempts: 1,
        })
      })

      it('keeps a slot’s attempts and its last error with a timed-out outcome, one claim for all', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        const finish = {
          finishedAt: at(2),
          outcome: 'timed-out' as const,
          error: 'attempt 3 ran past the net’s TIMEOUT',
          attempts: 3,
        }
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, finish)).toBe(true)
        expect(await ledger.history('merge-gate-sweeper', 10)).toEqual([
          { id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z', ...claimOf(0), ...finish },
        ])
        const none = { finishedAt: at(1), outcome: 'aborted' as const, attempts: 0 }
        await ledger.claim(claimOf(1))
        expect(await ledger.finish('merge-gate-sweeper', at(1), 'host-a-1', 3, none)).toBe(true)
        expect(
          (await ledger.get('merge-gate-sweeper', at(1)))?.attempts,
          'a pass never started made 0 attempts',
        ).toBe(0)
      })

      it('records a slot skipped for overlap with a claim and 0 attempts, and leaves another term’s claim alone', async () => {
        const ledger = await makeLedger()
        const skipped = { finishedAt: at(0), outcome: 'skipped' as const, attempts: 0 }
        expect(await ledger.claim(claimOf(0))).toBe(true)
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, skipped)).toBe(true)
        expect(await ledger.history('merge-gate-sweeper', 10), 'a skipped slot is unaccounted').toEqual([
          { id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z', ...claimOf(0), ...skipped },
        ])
        expect(
          await ledger.claim(claimOf(0, { owner: 'host-b-2', fence: 4 })),
          'a skipped slot ran after all',
        ).toBe(false)
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-b-2', 4, skipped)).toBe(false)
        expect((await ledger.get('merge-gate-sweeper', at(0)))?.owner).toBe('host-a-1')
      })

      it('keeps at most 2,000 characters of an error, marked as cut, so no status view serves a huge one', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        const error = `HttpError: ${'x'.repeat(8_000)}`
        const finish = { finishedAt: at(1), outcome: 'failed' as const, error }
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, finish)).toBe(true)
        const stored = (await ledger.get('merge-gate-sweeper', at(0)))?.error ?? ''
        expect(stored.startsWith(error.slice(0, 2_000)), 'the error’s start was not kept').toBe(true)
        expect(stored).toMatch(/… \[6011 more characters not kept\]$/)
        expect(stored.length, 'the stored error was not capped').toBeLessThan(2_100)
      })

      it('leaves another owner’s or another term’s claim as it is', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        const finish = { finishedAt: at(1), outcome: 'ok' as const }
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-b-2', 3, finish)).toBe(false)
        expect(await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 2, finish)).toBe(false)
        expect(await ledger.finish('merge-gate-sweeper', at(5), 'host-a-1', 3, finish)).toBe(false)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: expect.any(String),
          ...claimOf(0),
        })
      })
    })

    describe('slots accounted as not run', () => {
      const missed = (slotMinutes: number, extra: Partial<RunAccount> = {}): RunAccount => ({
        net: 'merge-gate-sweeper',
        slot: at(slotMinutes),
        owner: 'host-a-1',
        fence: 3,
        at: at(90),
        outcome: 'missed',
        reason: 'outside the catch-up window of 1h',
        ...extra,
      })

      it('records a missed slot once, with 0 attempts and its reason, and leaves a slot that has a record alone', async () => {
        const ledger = await makeLedger()
        expect(await ledger.account(missed(0))).toBe(true)
        expect(await ledger.account(missed(0, { owner: 'host-b-2' })), 'a slot accounted twice').toBe(false)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          net: 'merge-gate-sweeper',
          slot: at(0),
          owner: 'host-a-1',
          fence: 3,
          startedAt: at(90),
          finishedAt: at(90),
          outcome: 'missed',
          error: 'outside the catch-up window of 1h',
          attempts: 0,
        })
        expect(await ledger.claim(claimOf(1))).toBe(true)
        expect(await ledger.account(missed(1)), 'a run slot was re-recorded as missed').toBe(false)
        expect((await ledger.get('merge-gate-sweeper', at(1)))?.outcome).toBeUndefined()
      })

      it('lets a later claim take over a missed or paused slot, and refuses the claim after that', async () => {
        const ledger = await makeLedger()
        await ledger.account(missed(0))
        await ledger.account(missed(1, { outcome: 'paused', reason: 'paused by ops: deploy freeze' }))
        for (const slot of [0, 1]) {
          expect(
            await ledger.claim(claimOf(slot, { owner: 'host-b-2', fence: 4 })),
            'a backfill could not run it',
          ).toBe(true)
          expect(await ledger.get('merge-gate-sweeper', at(slot))).toEqual({
            id: expect.any(String),
            ...claimOf(slot, { owner: 'host-b-2', fence: 4 }),
          })
          expect(await ledger.claim(claimOf(slot)), 'a taken-over slot ran twice').toBe(false)
        }
      })

      it('gives exactly one of twenty concurrent claims of a missed slot the slot', async () => {
        const ledger = await makeLedger()
        await ledger.account(missed(7))
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => ledger.claim(claimOf(7, { owner: `host-${i}`, fence: i }))),
        )
        expect(answers.filter((a) => a).length, 'a missed slot claimed twice would run twice').toBe(1)
        expect((await ledger.get('merge-gate-sweeper', at(7)))?.owner).toBe(`host-${answers.indexOf(true)}`)
      })

      it('records a deferred slot of one installation under <net>:<installation>, naming the installation, apart from the other installations', async () => {
        const ledger = await makeLedger()
        const deferred = missed(0, {
          net: 'board-issue-sync:41',
          outcome: 'deferred',
          reason: 'rate limit: 40 of 5000 points left, at or under the reserve of 500',
          installation: 41,
        })
        expect(await ledger.account(deferred)).toBe(true)
        expect(await ledger.get('board-issue-sync:41', at(0))).toEqual({
          id: 'board-issue-sync:41@2026-09-30T15:00:00.000Z',
          net: 'board-issue-sync:41',
          slot: at(0),
          owner: 'host-a-1',
          fence: 3,
          startedAt: at(90),
          finishedAt: at(90),
          outcome: 'deferred',
          error: 'rate limit: 40 of 5000 points left, at or under the reserve of 500',
          attempts: 0,
          installation: 41,
        })
        const other = claimOf(0, { net: 'board-issue-sync:42', installation: 42 })
        expect(await ledger.claim(other), 'one installation’s deferral took another’s slot').toBe(true)
        expect(await ledger.get('board-issue-sync:42', at(0))).toEqual({
          id: 'board-issue-sync:42@2026-09-30T15:00:00.000Z',
          ...other,
        })
        const later = claimOf(0, { net: 'board-issue-sync:41', installation: 41, fence: 4 })
        expect(await ledger.claim(later), 'a deferred slot could not be run later').toBe(true)
        expect((await ledger.history('board-issue-sync:41', 5)).map((r) => r.installation)).toEqual([41])
      })

      it('refuses an installation that is not a positive integer', async () => {
        const ledger = await makeLedger()
        const bad = claimOf(0, { installation: 0 })
        await expect(ledger.claim(bad)).rejects.toMatchObject({
          code: 'RUN_LEDGER_INVALID',
          message: expect.stringContaining('expected installation to be a GitHub App installation id'),
        })
        expect(await ledger.get('merge-gate-sweeper', at(0))).toBeUndefined()
      })

      it('refuses to account a slot with an outcome that is not missed or paused', async () => {
        const ledger = await makeLedger()
        const bad = { ...missed(0), outcome: 'ok' } as unknown as RunAccount
        await expect(ledger.account(bad)).rejects.toMatchObject({
          name: 'RunLedgerError',
          code: 'RUN_LEDGER_INVALID',
          message: expect.stringContaining('expected outcome to be one of missed, paused, deferred'),
        })
        expect(await ledger.get('merge-gate-sweeper', at(0))).toBeUndefined()
      })
    })

    describe('closing an older term’s unfinished run', () => {
      const aborted = {
        finishedAt: at(30),
        outcome: 'aborted' as const,
        error: 'its term ended before the pass did',
        attempts: 1,
      }

      it('records the end of a claim an older term never finished, once', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0)) // fence 3, never finished: its holder died
        expect(
          await ledger.close('merge-gate-sweeper', at(0), 4, aborted),
          'the dead term’s claim stays open',
        ).toBe(true)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: expect.any(String),
          ...claimOf(0),
          ...aborted,
        })
        expect(
          await ledger.close('merge-gate-sweeper', at(0), 5, aborted),
          'a closed run was closed again',
        ).toBe(false)
      })

      it('leaves a finished run, a claim of the closing term or a newer one, and an empty slot alone', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, { finishedAt: at(1), outcome: 'ok' })
        await ledger.claim(claimOf(1, { fence: 4 }))
        expect(
          await ledger.close('merge-gate-sweeper', at(0), 4, aborted),
          'a finished run was overwritten',
        ).toBe(false)
        expect(
          await ledger.close('merge-gate-sweeper', at(1), 4, aborted),
          'a live term’s pass was closed',
        ).toBe(false)
        expect(await ledger.close('merge-gate-sweeper', at(2), 4, aborted)).toBe(false)
        expect((await ledger.get('merge-gate-sweeper', at(0)))?.outcome).toBe('ok')
        expect((await ledger.get('merge-gate-sweeper', at(1)))?.outcome).toBeUndefined()
      })
    })

    describe('retaking an older term’s unfinished run', () => {
      it('hands a dead term’s unfinished claim to the retaking term, counts it, and refuses the old term’s late finish', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0)) // fence 3, never finished: its holder died mid-pass
        const retaker = claimOf(0, { owner: 'host-b-2', fence: 4, startedAt: at(3) })
        expect(await ledger.retake(retaker), 'the cut-off pass cannot run again').toBe(true)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: 'merge-gate-sweeper@2026-09-30T15:00:00.000Z',
          ...retaker,
          retakes: 1,
        })
        const late = { finishedAt: at(4), outcome: 'ok' as const }
        expect(
          await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, late),
          'the dead term’s late finish overwrote the retaking term’s run',
        ).toBe(false)
        expect(await ledger.retake(retaker), 'one term retook its own claim').toBe(false)
        expect(await ledger.retake(claimOf(0, { owner: 'host-c-3', fence: 5 }))).toBe(true)
        expect((await ledger.get('merge-gate-sweeper', at(0)))?.retakes).toBe(2)
        await ledger.finish('merge-gate-sweeper', at(0), 'host-c-3', 5, late)
        expect(await ledger.get('merge-gate-sweeper', at(0))).toMatchObject({
          outcome: 'ok',
          owner: 'host-c-3',
          retakes: 2,
        })
      })

      it('leaves a finished run, a claim of the retaking term or a newer one, and an empty slot alone', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, { finishedAt: at(1), outcome: 'ok' })
        await ledger.claim(claimOf(1, { fence: 4 }))
        await ledger.account({ ...claimOf(2), at: at(2), outcome: 'missed' })
        const by = (slot: number) => claimOf(slot, { owner: 'host-b-2', fence: 4 })
        expect(await ledger.retake(by(0)), 'a finished run was run again').toBe(false)
        expect(await ledger.retake(by(1)), 'a live term’s pass was taken over').toBe(false)
        expect(await ledger.retake(by(2)), 'an account of an unrun slot was taken as a run').toBe(false)
        expect(await ledger.retake(by(3)), 'a retake claimed an empty slot').toBe(false)
        expect(await ledger.get('merge-gate-sweeper', at(3))).toBeUndefined()
        expect(await ledger.get('merge-gate-sweeper', at(1))).toEqual({
          id: expect.any(String),
          ...claimOf(1, { fence: 4 }),
        })
      })

      it('takes a manual run over by its own key, never the scheduled slot of its instant', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0, { manual: true }))
        await ledger.claim(claimOf(0))
        await ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, { finishedAt: at(1), outcome: 'ok' })
        expect(await ledger.retake(claimOf(0, { owner: 'host-b-2', fence: 4, manual: true }))).toBe(true)
        expect((await ledger.get('merge-gate-sweeper', at(0)))?.outcome).toBe('ok')
        expect((await ledger.get('merge-gate-sweeper', at(0), { manual: true }))?.owner).toBe('host-b-2')
      })

      const racing = allowances.racingRetakesMayBothWin
      it(`lets exactly one of several concurrent retakes by one term win${racing ? ` (at least one here: ${racing})` : ''}`, async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        const answers = await Promise.all(
          ['b', 'c', 'd', 'e', 'f'].map((host) =>
            ledger.retake(claimOf(0, { owner: `host-${host}`, fence: 4 })),
          ),
        )
        const wins = answers.filter(Boolean).length
        if (racing === undefined) expect(wins, 'a cut-off pass was taken over twice at once').toBe(1)
        else expect(wins, 'no racing retake won').toBeGreaterThanOrEqual(1)
        expect((await ledger.get('merge-gate-sweeper', at(0)))?.fence).toBe(4)
      })

      it('refuses a malformed claim with a typed error naming the operation, and writes nothing', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        await expect(ledger.retake(claimOf(0, { fence: -1 }))).rejects.toMatchObject({
          name: 'RunLedgerError',
          code: 'RUN_LEDGER_INVALID',
          operation: 'retake',
        })
        expect(await ledger.get('merge-gate-sweeper', at(0))).toEqual({
          id: expect.any(String),
          ...claimOf(0),
        })
      })
    })

    describe('history and prune', () => {
      it('lists the newest runs of a net first, up to the limit', async () => {
        const ledger = await makeLedger()
        for (const m of [3, 1, 4, 0, 2]) await ledger.claim(claimOf(m))
        await ledger.claim(claimOf(9, { net: 'board-issue-sync' }))
        const slots = (await ledger.history('merge-gate-sweeper', 3)).map((r) => r.slot)
        expect(slots).toEqual([at(4), at(3), at(2)])
        expect(await ledger.history('nobody', 10)).toEqual([])
      })

      it('with `until`, leaves out runs whose slot is after it, still giving `limit` runs', async () => {
        const ledger = await makeLedger()
        for (const m of [1, 2, 3]) await ledger.claim(claimOf(m))
        // Years ahead, as a hand-written or foreign record could be: never the newest run of a view.
        for (const years of [1, 2, 3]) await ledger.claim(claimOf(years * 525_600))
        const slots = (await ledger.history('merge-gate-sweeper', 2, { until: at(3) })).map((r) => r.slot)
        expect(slots, 'a run after `until` was read, or pushed an earlier one out').toEqual([at(3), at(2)])
        expect((await ledger.history('merge-gate-sweeper', 1))[0]?.slot).toEqual(at(3 * 525_600))
      })

      it('prunes all but the newest N runs of one net, leaving other nets alone', async () => {
        const ledger = await makeLedger()
        for (let m = 0; m < 6; m++) await ledger.claim(claimOf(m))
        await ledger.claim(claimOf(0, { net: 'board-issue-sync' }))
        expect(await ledger.prune('merge-gate-sweeper', 2)).toBe(4)
        expect((await ledger.history('merge-gate-sweeper', 10)).map((r) => r.slot)).toEqual([at(5), at(4)])
        expect(await ledger.prune('merge-gate-sweeper', 2)).toBe(0)
        expect(await ledger.history('board-issue-sync', 10)).toHaveLength(1)
        expect(await ledger.prune('merge-gate-sweeper', 0)).toBe(2)
        expect(await ledger.history('merge-gate-sweeper', 10)).toEqual([])
      })

      it('with `until`, keeps the newest N runs at or before it, and leaves runs after it alone', async () => {
        const ledger = await makeLedger()
        for (const m of [1, 2, 3]) await ledger.claim(claimOf(m))
        // Years ahead, as a hand-written or foreign record could be: never one of the N to keep.
        for (const years of [1, 2]) await ledger.claim(claimOf(years * 525_600))
        expect(await ledger.prune('merge-gate-sweeper', 2, { until: at(3) })).toBe(1)
        const slots = (await ledger.history('merge-gate-sweeper', 10)).map((r) => r.slot)
        expect(
          slots,
          'records dated ahead took the place of the newest real runs, which were pruned',
        ).toEqual([at(2 * 525_600), at(525_600), at(3), at(2)])
      })

      it('lets a pruned slot be claimed again (retention bounds what the ledger remembers)', async () => {
        const ledger = await makeLedger()
        await ledger.claim(claimOf(0))
        await ledger.claim(claimOf(1))
        await ledger.prune('merge-gate-sweeper', 1)
        expect(await ledger.claim(claimOf(0))).toBe(true)
      })
    })

    describe('bad input and aborted calls', () => {
      it.each([
        ['an empty net', claimOf(0, { net: '' }), /net name/],
        ['an invalid slot', claimOf(0, { slot: new Date(Number.NaN) }), /slot to be a valid Date/],
        ['a negative fence', claimOf(0, { fence: -1 }), /fence to be a whole number/],
        ['an empty owner', claimOf(0, { owner: '' }), /owner/],
      ])('refuses a claim with %s, naming what was expected', async (_what, claim, message) => {
        const ledger = await makeLedger()
        const error = await ledger.claim(claim).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(RunLedgerError)
        expect(error).toMatchObject({ code: 'RUN_LEDGER_INVALID', operation: 'claim' })
        expect((error as Error).message).toMatch(message)
      })

      it('refuses a finish with an unknown outcome, a history limit below 1 and an `until` that is no instant', async () => {
        const ledger = await makeLedger()
        const bad = { finishedAt: at(1), outcome: 'done' as never }
        await expect(ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, bad)).rejects.toMatchObject({
          code: 'RUN_LEDGER_INVALID',
        })
        const fractional = { finishedAt: at(1), outcome: 'ok' as const, attempts: 1.5 }
        await expect(
          ledger.finish('merge-gate-sweeper', at(0), 'host-a-1', 3, fractional),
        ).rejects.toMatchObject({ code: 'RUN_LEDGER_INVALID', message: expect.stringMatching(/attempts/) })
        await expect(
          ledger.history('merge-gate-sweeper', 1, { until: new Date(Number.NaN) }),
        ).rejects.toMatchObject({ name: 'RunLedgerError', code: 'RUN_LEDGER_INVALID' })
        await expect(ledger.history('merge-gate-sweeper', 0)).rejects.toMatchObject({
          code: 'RUN_LEDGER_INVALID',
        })
      })

      it('rejects a call whose signal is already aborted and claims nothing', async () => {
        const ledger = await makeLedger()
        const error = await ledger.claim(claimOf(0), { signal: AbortSignal.abort() }).catch((e: unknown) => e)
        expect(error).toMatchObject({
          name: 'RunLedgerError',
          code: 'RUN_LEDGER_ABORTED',
          net: 'merge-gate-sweeper',
        })
        expect(await ledger.get('merge-gate-sweeper', at(0))).toBeUndefined()
      })
    })
  })
}
