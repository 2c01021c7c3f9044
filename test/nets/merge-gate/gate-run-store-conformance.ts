/**
 * The one conformance suite every GateRunStore runs: both twins must answer identical calls identically.
 */
import { describe, expect, it } from 'vitest'
import type { GatingRun } from '../../../src/nets/merge-gate/gate-run.js'
import { GateRunError } from '../../../src/nets/merge-gate/gate-run-error.js'
import type { GateRunStore } from '../../../src/nets/merge-gate/gate-run-store.js'

export interface GateRunStoreHarness {
  store: GateRunStore
  /** Writes a raw `gate_runs` document as another program would, bypassing validation. */
  insertDocument(doc: Record<string, unknown>): Promise<void>
}

export interface GateRunStoreConformanceOptions {
  /**
   * Why a race of two marks on one existing run cannot elect a single winner on this server (FerretDB
   * applies an update as read-then-write); the race then asserts the end state only.
   */
  raceMayElectTwo?: string
}

const t0 = new Date('2026-09-30T15:00:00.000Z')
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000)
const sha = (n: number) => n.toString(16).padStart(40, '0')

function run(id: string, minutes: number, extra: Partial<GatingRun> = {}): GatingRun {
  return {
    id,
    repo: 'acme/widgets',
    pull: 7,
    headSha: sha(7),
    state: 'running',
    updatedAt: at(minutes),
    ...extra,
  }
}

export function gateRunStoreConformance(
  label: string,
  makeHarness: () => Promise<GateRunStoreHarness>,
  options: GateRunStoreConformanceOptions = {},
): void {
  describe(`${label} gate-run store conformance`, () => {
    describe('record and get', () => {
      it('round-trips a run with only the required fields', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', 0))
        expect(await store.get('r-1')).toEqual(run('r-1', 0))
        expect(await store.get('r-404')).toBeUndefined()
      })

      it('round-trips every optional field', async () => {
        const { store } = await makeHarness()
        const full = run('r-1', 0, {
          gateContext: 'review/verdict',
          state: 'died',
          reason: 'runner lost',
          settledAt: at(5),
          relaunchRequestedAt: at(4),
        })
        await store.record(full)
        expect(await store.get('r-1')).toEqual(full)
      })

      it('replaces a run recorded again under the same id, wholesale', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', 0, { reason: 'old', settledAt: at(1) }))
        await store.record(run('r-1', 2, { state: 'succeeded' }))
        expect(await store.get('r-1')).toEqual(run('r-1', 2, { state: 'succeeded' }))
      })

      it('refuses an invalid run with GATE_RUN_INVALID naming the field, writing nothing', async () => {
        const { store } = await makeHarness()
        const bad = { ...run('r-1', 0), headSha: 'not-a-sha' }
        const error = await store.record(bad).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(GateRunError)
        expect(error).toMatchObject({ code: 'GATE_RUN_INVALID', runId: 'r-1', operation: 'record' })
        expect((error as Error).message).toMatch(/headSha/)
        expect(await store.get('r-1')).toBeUndefined()
      })

      it('refuses a bad id on get', async () => {
        const { store } = await makeHarness()
        await expect(store.get('has space')).rejects.toMatchObject({ code: 'GATE_RUN_INVALID' })
      })

      it('refuses to read a stored document that fails the schema, naming it', async () => {
        const { store, insertDocument } = await makeHarness()
        await insertDocument({ _id: 'r-bad', repo: 'acme/widgets', pull: 'seven', updatedAt: at(0) })
        await expect(store.get('r-bad')).rejects.toMatchObject({ code: 'GATE_RUN_INVALID', runId: 'r-bad' })
      })
    })

    describe('update', () => {
      it('applies the patch, clears fields set to null, and resolves the run as it now is', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', 0, { reason: 'slow', settledAt: at(1) }))
        const after = await store.update('r-1', {
          updatedAt: at(3),
          state: 'died',
          reason: null,
          settledAt: null,
        })
        expect(after).toEqual(run('r-1', 3, { state: 'died' }))
        expect(await store.get('r-1')).toEqual(after)
      })

      it('rejects GATE_RUN_NOT_FOUND for a run that is not there', async () => {
        const { store } = await makeHarness()
        await expect(store.update('r-404', { updatedAt: at(0) })).rejects.toMatchObject({
          name: 'GateRunError',
          code: 'GATE_RUN_NOT_FOUND',
          runId: 'r-404',
        })
      })

      it('rejects a patch with an unknown field or without updatedAt, changing nothing', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', 0))
        await expect(store.update('r-1', { updatedAt: at(1), pull: 9 } as never)).rejects.toMatchObject({
          code: 'GATE_RUN_INVALID',
        })
        await expect(store.update('r-1', { state: 'died' } as never)).rejects.toThrow(/updatedAt/)
        expect(await store.get('r-1')).toEqual(run('r-1', 0))
      })
    })

    describe('page (the sweep query)', () => {
      it('returns unsettled runs inside [from, to], bounds included, newest first', async () => {
        const { store } = await makeHarness()
        for (const [id, minutes] of [
          ['a', -61],
          ['b', -60],
          ['c', -30],
          ['d', -3],
          ['e', -2],
        ] as const) {
          await store.record(run(id, minutes))
        }
        await store.record(run('settled', -20, { settledAt: at(-10) }))
        const page = await store.page({ from: at(-60), to: at(-3), limit: 200 })
        expect(page.runs.map((r) => r.id)).toEqual(['d', 'c', 'b'])
        expect(page.invalid).toEqual([])
        expect(page.next).toBeUndefined()
      })

      it('breaks ties by id, descending, and sets next only for a full page', async () => {
        const { store } = await makeHarness()
        for (const id of ['x-1', 'x-3', 'x-2']) await store.record(run(id, -10))
        const full = await store.page({ from: at(-60), to: at(0), limit: 3 })
        expect(full.runs.map((r) => r.id)).toEqual(['x-3', 'x-2', 'x-1'])
        expect(full.next).toEqual({ updatedAt: at(-10), id: 'x-1' })
        const short = await store.page({ from: at(-60), to: at(0), limit: 4 })
        expect(short.next).toBeUndefined()
      })

      it('continues from the oldest updatedAt of the previous page, losing and repeating nothing at a tie', async () => {
        const { store } = await makeHarness()
        // 7 runs, 4 of them sharing one instant, paged 3 at a time: a page boundary falls inside the tie.
        const ids = ['t-1', 't-2', 't-3', 't-4']
        for (const id of ids) await store.record(run(id, -20))
        await store.record(run('new', -5))
        await store.record(run('old-1', -40))
        await store.record(run('old-2', -50))
        const seen: string[] = []
        let after: Awaited<ReturnType<GateRunStore['page']>>['next']
        let pages = 0
        do {
          const page = await store.page({ from: at(-60), to: at(0), after, limit: 3 })
          seen.push(...page.runs.map((r) => r.id))
          after = page.next
          pages++
        } while (after !== undefined && pages < 10)
        expect(seen).toEqual(['new', 't-4', 't-3', 't-2', 't-1', 'old-1', 'old-2'])
        expect(pages).toBe(3)
      })

      it('returns documents failing the schema in invalid — never thrown — and pages past them', async () => {
        const { store, insertDocument } = await makeHarness()
        await store.record(run('good-1', -10))
        await insertDocument({
          _id: 'bad-1',
          repo: 'not a repo',
          pull: 1,
          headSha: sha(1),
          state: 'running',
          updatedAt: at(-11),
        })
        await insertDocument({
          _id: 'bad-2',
          repo: 'acme/widgets',
          pull: 1,
          headSha: sha(1),
          state: 'exploded',
          updatedAt: at(-12),
        })
        await store.record(run('good-2', -13))
        const first = await store.page({ from: at(-60), to: at(0), limit: 2 })
        expect(first.runs.map((r) => r.id)).toEqual(['good-1'])
        expect(first.invalid.map((i) => i.id)).toEqual(['bad-1'])
        expect(first.invalid[0]?.problems).toMatch(/repo/)
        expect(first.next).toEqual({ updatedAt: at(-11), id: 'bad-1' })
        const second = await store.page({ from: at(-60), to: at(0), after: first.next, limit: 2 })
        expect(second.runs.map((r) => r.id)).toEqual(['good-2'])
        expect(second.invalid.map((i) => i.id)).toEqual(['bad-2'])
      })

      // The sweep logs an invalid document's id: one of 100 KB once stalled the worker 19 s.
      it('names an invalid document by its id as one plain line of at most 500 characters', async () => {
        const { store, insertDocument } = await makeHarness()
        const longId = `\u001b]52;c;ZWNobyBwd25lZA==\u0007${'i'.repeat(100_000)}`
        await insertDocument({
          _id: longId,
          repo: 'acme/widgets',
          pull: 1,
          headSha: sha(1),
          updatedAt: at(-11),
        })
        const page = await store.page({ from: at(-60), to: at(0), limit: 1 })
        expect(page.invalid.map((i) => i.id)).toEqual([
          `]52;c;ZWNobyBwd25lZA==${'i'.repeat(462)}…(99538 more)`,
        ])
        expect(page.next?.id, 'the page’s cursor lost the whole id').toBe(longId)
      })

      it('refuses a limit outside 1..1000 and a bad instant', async () => {
        const { store } = await makeHarness()
        await expect(store.page({ from: at(-60), to: at(0), limit: 0 })).rejects.toMatchObject({
          code: 'GATE_RUN_INVALID',
        })
        await expect(store.page({ from: at(-60), to: at(0), limit: 1001 })).rejects.toThrow(/limit/)
        await expect(store.page({ from: new Date(Number.NaN), to: at(0), limit: 1 })).rejects.toThrow(/from/)
      })
    })

    describe('marks', () => {
      it('settles once: true, then false; the stamp never moves and updatedAt is untouched', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', -10))
        expect(await store.markSettled('r-1', at(0))).toBe(true)
        expect(await store.markSettled('r-1', at(1)), 'a settled run was settled again').toBe(false)
        expect(await store.get('r-1')).toEqual(run('r-1', -10, { settledAt: at(0) }))
        expect((await store.page({ from: at(-60), to: at(0), limit: 10 })).runs).toEqual([])
      })

      it('marks the relaunch request once, leaving the run unsettled', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', -10))
        expect(await store.markRelaunchRequested('r-1', at(0))).toBe(true)
        expect(await store.markRelaunchRequested('r-1', at(1))).toBe(false)
        expect(await store.get('r-1')).toEqual(run('r-1', -10, { relaunchRequestedAt: at(0) }))
        expect((await store.page({ from: at(-60), to: at(0), limit: 10 })).runs.map((r) => r.id)).toEqual([
          'r-1',
        ])
      })

      it('answers false for a run that is not there, creating nothing', async () => {
        const { store } = await makeHarness()
        expect(await store.markSettled('r-404', at(0))).toBe(false)
        expect(await store.markRelaunchRequested('r-404', at(0))).toBe(false)
        expect(await store.get('r-404')).toBeUndefined()
      })

      it('leaves one settled run when two marks race', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', -10))
        const wins = await Promise.all([store.markSettled('r-1', at(0)), store.markSettled('r-1', at(0))])
        const settled = await store.get('r-1')
        expect(settled?.settledAt).toEqual(at(0))
        if (options.raceMayElectTwo === undefined) {
          expect(wins.filter(Boolean)).toHaveLength(1)
        } else {
          // The end state is what the reconciler relies on; a double "true" only costs a log line.
          expect(wins.filter(Boolean).length).toBeGreaterThanOrEqual(1)
        }
      })

      it('refuses an invalid now', async () => {
        const { store } = await makeHarness()
        await store.record(run('r-1', -10))
        await expect(store.markSettled('r-1', new Date(Number.NaN))).rejects.toMatchObject({
          code: 'GATE_RUN_INVALID',
        })
      })
    })
  })
}
