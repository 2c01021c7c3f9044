/**
 * The conformance cases of the ledger's batch calls, `claimMany` and `finishMany` (run-ledger-conformance.ts
 * registers them for every twin): each item answered as its single call would answer it, in the order
 * given, a bad item refused alone. Skipped, saying so, for a ledger without them.
 */
import { describe, expect, it } from 'vitest'
import type { RunBatchAnswer, RunClaim, RunFinishEntry, RunLedger } from '../../src/runs/run-ledger.js'

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000)
const NET = 'merge-gate-sweeper'

function claimOf(slotMinutes: number, extra: Partial<RunClaim> = {}): RunClaim {
  return {
    net: NET,
    slot: at(slotMinutes),
    owner: 'host-a-1',
    fence: 3,
    startedAt: at(slotMinutes),
    ...extra,
  }
}

function finishOf(slotMinutes: number, extra: Partial<RunFinishEntry> = {}): RunFinishEntry {
  const finish = { finishedAt: at(slotMinutes + 1), outcome: 'ok' as const, attempts: 2 }
  return { net: NET, slot: at(slotMinutes), owner: 'host-a-1', fence: 3, finish, ...extra }
}

/** Each answer as a value, or the rejected error's code. */
function settled(answers: RunBatchAnswer[]): Array<boolean | string> {
  return answers.map((a) =>
    a.status === 'fulfilled' ? a.value : String((a.reason as { code?: unknown }).code ?? a.reason),
  )
}

type Batching = RunLedger & Required<Pick<RunLedger, 'claimMany' | 'finishMany'>>

/** The ledger, or the case skipped saying so when it lacks one of `methods`. */
async function batching(
  makeLedger: () => Promise<RunLedger>,
  skip: (note: string) => void,
  methods: ReadonlyArray<'claimMany' | 'finishMany'> = ['claimMany'],
) {
  const ledger = await makeLedger()
  for (const method of methods)
    if (!ledger[method]) skip(`this ledger has no ${method}: a worker on it sends each of those calls alone`)
  return ledger as Batching
}

/** Registers the batch calls' cases of `makeLedger`. */
export function runLedgerBatchCases(makeLedger: () => Promise<RunLedger>): void {
  describe('claimMany and finishMany', () => {
    it('answers each claim as claim would, in the order given: a duplicate, a taken slot, a manual run and an unrun takeover', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note))
      expect(await ledger.claim(claimOf(1, { owner: 'host-b-2', fence: 2 }))).toBe(true)
      const missed = {
        net: NET,
        slot: at(2),
        owner: 'host-b-2',
        fence: 2,
        at: at(3),
        outcome: 'missed' as const,
      }
      expect(await ledger.account(missed)).toBe(true)
      const answers = await ledger.claimMany([
        claimOf(0),
        claimOf(0, { owner: 'host-c-3', fence: 4 }),
        claimOf(1),
        claimOf(0, { manual: true }),
        claimOf(2),
        claimOf(3, { installation: 41 }),
      ])
      expect(settled(answers), 'an answer was not the one claim gives, or not in order').toEqual([
        true,
        false,
        false,
        true,
        true,
        true,
      ])
      expect(await ledger.get(NET, at(0))).toEqual({ id: `${NET}@${at(0).toISOString()}`, ...claimOf(0) })
      expect((await ledger.get(NET, at(1)))?.owner, 'a taken slot changed hands').toBe('host-b-2')
      expect(await ledger.get(NET, at(0), { manual: true })).toMatchObject({
        manual: true,
        owner: 'host-a-1',
      })
      expect(await ledger.get(NET, at(2)), 'the missed slot was not taken over').toEqual({
        id: `${NET}@${at(2).toISOString()}`,
        ...claimOf(2),
      })
      expect((await ledger.get(NET, at(3)))?.installation).toBe(41)
      expect(await ledger.history(NET, 10)).toHaveLength(5)
      expect(await ledger.claimMany([])).toEqual([])
    })

    it('refuses a bad claim alone, with the typed error claim gives, and claims the others', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note))
      const answers = await ledger.claimMany([claimOf(0), claimOf(1, { fence: -1 }), claimOf(2)])
      expect(settled(answers)).toEqual([true, 'RUN_LEDGER_INVALID', true])
      expect(answers[1]).toMatchObject({
        reason: { name: 'RunLedgerError', operation: 'claim', message: expect.stringMatching(/fence/) },
      })
      expect(await ledger.get(NET, at(1))).toBeUndefined()
      expect((await ledger.history(NET, 10)).map((r) => r.slot)).toEqual([at(2), at(0)])
    })

    it('answers each finish as finish would: only the claim of the same owner and fence, by its own key', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note), ['finishMany'])
      for (const claim of [claimOf(0), claimOf(1), claimOf(2, { manual: true }), claimOf(3)])
        expect(await ledger.claim(claim)).toBe(true)
      const answers = await ledger.finishMany([
        finishOf(0),
        finishOf(1, { fence: 4 }),
        finishOf(3, { owner: 'host-b-2' }),
        finishOf(2, { manual: true }),
        finishOf(2),
        finishOf(9),
      ])
      expect(settled(answers), 'an answer was not the one finish gives, or not in order').toEqual([
        true,
        false,
        false,
        true,
        false,
        false,
      ])
      const { finish } = finishOf(0)
      expect(await ledger.get(NET, at(0))).toEqual({
        id: `${NET}@${at(0).toISOString()}`,
        ...claimOf(0),
        ...finish,
      })
      expect((await ledger.get(NET, at(1)))?.outcome, 'another term’s claim was finished').toBeUndefined()
      expect((await ledger.get(NET, at(3)))?.outcome, 'another owner’s claim was finished').toBeUndefined()
      expect(await ledger.get(NET, at(2), { manual: true })).toMatchObject({ outcome: 'ok', attempts: 2 })
      expect(await ledger.get(NET, at(9))).toBeUndefined()
    })

    it('answers true to every finish when all match, and refuses a bad finish alone', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note), ['finishMany'])
      for (const slot of [0, 1, 2]) await ledger.claim(claimOf(slot))
      expect(settled(await ledger.finishMany([finishOf(0), finishOf(1)]))).toEqual([true, true])
      const bad = finishOf(2, { finish: { finishedAt: at(3), outcome: 'done' as never } })
      const answers = await ledger.finishMany([bad, finishOf(2)])
      expect(settled(answers)).toEqual(['RUN_LEDGER_INVALID', true])
      expect(answers[0]).toMatchObject({
        reason: { operation: 'finish', message: expect.stringMatching(/outcome/) },
      })
      expect((await ledger.get(NET, at(2)))?.outcome).toBe('ok')
      expect(await ledger.finishMany([])).toEqual([])
    })

    it('rejects every claim of a call whose signal is already aborted, and writes nothing', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note))
      const signal = AbortSignal.abort()
      expect(settled(await ledger.claimMany([claimOf(0), claimOf(2)], { signal }))).toEqual([
        'RUN_LEDGER_ABORTED',
        'RUN_LEDGER_ABORTED',
      ])
      expect(await ledger.get(NET, at(0))).toBeUndefined()
    })

    it('rejects every finish of a call whose signal is already aborted, and writes nothing', async (ctx) => {
      const ledger = await batching(makeLedger, (note) => ctx.skip(note), ['finishMany'])
      await ledger.claim(claimOf(1))
      const signal = AbortSignal.abort()
      expect(settled(await ledger.finishMany([finishOf(1)], { signal }))).toEqual(['RUN_LEDGER_ABORTED'])
      expect((await ledger.get(NET, at(1)))?.outcome).toBeUndefined()
    })
  })
}
