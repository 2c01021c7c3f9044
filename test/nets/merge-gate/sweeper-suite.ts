/**
 * The sweeper's suite over a gate-run store holding a few thousand runs, with fixed instants: windows,
 * grace, pages and the page budget, deep passes, the parked cursor. Run by each store twin.
 *
 * The offers go to a recording offerer that answers `healthy` (so runs stay unsettled and the next pass
 * sees the same store); what one offer does is the reconciler's suite, against the sandbox.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { ForgeOctokit } from '../../../src/forge/client/github-app.js'
import { type GateRunDocument, toGateRunDocument } from '../../../src/nets/merge-gate/gate-run.js'
import type { GateRunStore } from '../../../src/nets/merge-gate/gate-run-store.js'
import type { OfferOutcome } from '../../../src/nets/merge-gate/reconciler.js'
import { isDeepPass, type SweepOptions, Sweeper } from '../../../src/nets/merge-gate/sweeper.js'
import { captureLogs } from '../../support/log-capture.js'

export interface SweeperStoreHarness {
  store: GateRunStore
  /** Writes raw documents as another program would (valid or not). */
  insertDocuments(docs: Array<Record<string, unknown>>): Promise<void>
}

const MIN = 60_000
const HOUR = 60 * MIN
const now = new Date('2026-09-30T15:00:00.000Z')
const ago = (ms: number) => new Date(now.getTime() - ms)
const later = (minutes: number) => new Date(now.getTime() + minutes * MIN)
const OPTIONS: SweepOptions = { lookbackMs: 60 * MIN, horizonMs: 192 * HOUR, deepEvery: 30, graceMs: 3 * MIN }

type Doc = Record<string, unknown> & { _id: string; updatedAt: Date; settledAt?: Date | null }

/** The data set: 3,000+ runs; see the comments for what each group tests. */
function dataset(): Doc[] {
  const docs: Doc[] = []
  const id = (prefix: string, i: number) => `${prefix}-${String(i).padStart(5, '0')}`
  const add = (runId: string, updatedAt: Date, extra: Partial<GateRunDocument> = {}) =>
    docs.push({
      ...toGateRunDocument({
        id: runId,
        repo: 'acme/widgets',
        pull: 1 + (docs.length % 500),
        headSha: docs.length.toString(16).padStart(40, '0'),
        state: 'running',
        updatedAt,
      }),
      ...extra,
    })
  // 300 in the shallow window, in pairs sharing an instant (ties across page boundaries), newest at now−3m.
  for (let i = 0; i < 300; i++) add(id('hot', i), ago(3 * MIN + Math.floor(i / 2) * 22_000))
  // 2,700 older, down to about 189 h.
  for (let i = 0; i < 2700; i++) add(id('old', i), ago(61 * MIN + i * 251_000))
  // Inside the grace at `now`: left to the event path.
  for (let i = 0; i < 10; i++) add(id('grace', i), ago(170_000 - i * 15_000))
  // Beyond the horizon.
  for (let i = 0; i < 10; i++) add(id('ancient', i), ago(192 * HOUR + 1 + i * MIN))
  // Exactly on the bounds: included.
  add('edge-horizon', ago(192 * HOUR))
  add('edge-lookback', ago(60 * MIN))
  // Settled: never offered.
  for (let i = 0; i < 50; i++) add(id('settled', i), ago(10 * MIN + i * 3 * HOUR), { settledAt: ago(MIN) })
  // Invalid documents in the shallow window: skipped, counted, logged once.
  for (let i = 0; i < 5; i++) add(id('invalid', i), ago(20 * MIN + i * 1000), { state: 'exploded' as never })
  return docs
}

/** The oracle: the documents a sweep of [from, to] pages through, in page order. */
function inWindow(docs: Doc[], from: Date, to: Date): Doc[] {
  return docs
    .filter((d) => (d.settledAt ?? null) === null && d.updatedAt >= from && d.updatedAt <= to)
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a._id < b._id ? 1 : -1))
}
const validIds = (docs: Doc[]) => docs.filter((d) => d.state !== 'exploded').map((d) => d._id)

/** An offerer that records each run it is offered (in offer order) and answers healthy. */
function recordingOfferer(answer: (id: string) => OfferOutcome | Error = () => 'healthy') {
  const offered: string[] = []
  return {
    offered,
    take: () => offered.splice(0, offered.length),
    async offer(run: { id: string }): Promise<OfferOutcome> {
      offered.push(run.id)
      const result = answer(run.id)
      if (result instanceof Error) throw result
      return result
    },
  }
}

const forge = {} as ForgeOctokit // never called: the recording offerer sends nothing

export function sweeperSuite(label: string, makeHarness: () => Promise<SweeperStoreHarness>): void {
  // FerretDB answers a page of this data set in a few hundred ms; the budget leaves room for a loaded machine.
  describe(`sweeper over ${label}`, { timeout: 120_000 }, () => {
    const docs = dataset()
    let store: GateRunStore
    beforeAll(async () => {
      const harness = await makeHarness()
      await harness.insertDocuments(docs)
      store = harness.store
    })

    const pass = (sweeper: Sweeper, at: Date, log = captureLogs().logger) =>
      sweeper.pass({ forge, now: at, log })

    it('opens a term with a deep pass: newest first, 10 pages of 200, then parks its cursor', async () => {
      const offerer = recordingOfferer()
      const sweeper = new Sweeper({ store, reconciler: offerer, options: OPTIONS })
      const report = await pass(sweeper, now)
      const deep = inWindow(docs, ago(192 * HOUR), ago(3 * MIN))
      expect(deep).toHaveLength(3007)
      expect(offerer.take()).toEqual(validIds(deep.slice(0, 2000)))
      expect(report).toMatchObject({
        pass: 1,
        deep: true,
        resumed: false,
        parked: true,
        pages: 10,
        invalid: 5,
      })
      expect(report.offered).toBe(1995)
      expect(sweeper.parked?.after).toEqual({ updatedAt: deep[1999]!.updatedAt, id: deep[1999]!._id })
    })

    it('resumes the parked deep sweep beside the next shallow pass, within one page budget, offering each run once', async () => {
      const offerer = recordingOfferer()
      const sweeper = new Sweeper({ store, reconciler: offerer, options: OPTIONS })
      await pass(sweeper, now)
      const first = offerer.take()
      const report = await pass(sweeper, later(1))
      const second = offerer.take()
      const shallow = inWindow(docs, ago(59 * MIN), ago(2 * MIN))
      const deepRest = inWindow(docs, ago(192 * HOUR), ago(3 * MIN)).slice(2000)
      // The grace runs that aged past it since the first pass are offered by the shallow sweep now.
      expect(validIds(shallow)).toContain('grace-00000')
      expect(second).toEqual([...validIds(shallow), ...validIds(deepRest)])
      expect(new Set(second).size).toBe(second.length)
      expect(report).toMatchObject({ pass: 2, deep: false, resumed: true, parked: false, pages: 2 + 6 })
      // Between them, the deep sweep reached every run eligible when it started, exactly once.
      const deepIds = [...first, ...validIds(deepRest)]
      expect(new Set(deepIds).size).toBe(deepIds.length)
      expect(deepIds.sort()).toEqual(validIds(inWindow(docs, ago(192 * HOUR), ago(3 * MIN))).sort())
    })

    it('keeps shallow passes inside [now − lookback, now − grace], bounds included', async () => {
      const offerer = recordingOfferer()
      const sweeper = new Sweeper({ store, reconciler: offerer, options: { ...OPTIONS, deepEvery: 1000 } })
      await pass(sweeper, later(-10_000)) // the term's deep first pass, far in the past: offers nothing here
      offerer.take()
      const report = await pass(sweeper, now)
      const offered = offerer.take()
      expect(offered).toEqual(validIds(inWindow(docs, ago(60 * MIN), ago(3 * MIN))))
      expect(offered).toContain('edge-lookback')
      expect(offered).toContain('hot-00000') // updated exactly now − grace
      expect(offered.some((id) => id.startsWith('grace-'))).toBe(false)
      expect(offered.some((id) => id.startsWith('settled-'))).toBe(false)
      expect(offered.some((id) => id.startsWith('old-'))).toBe(false)
      // 300 hot runs and the one on the lookback bound; the settled and invalid ones are not offered.
      expect(report).toMatchObject({
        deep: false,
        resumed: false,
        parked: false,
        pages: 2,
        offered: 301,
        invalid: 5,
      })
    })

    it('runs deep on the first pass of a term and every Nth pass after it', async () => {
      // Narrow windows keep each page small; what is tested is which passes are deep.
      const narrow = { lookbackMs: 5 * MIN, horizonMs: 10 * MIN, graceMs: MIN, deepEvery: 3 }
      const sweeper = new Sweeper({ store, reconciler: recordingOfferer(), options: narrow })
      const kinds: boolean[] = []
      for (let i = 0; i < 7; i++) kinds.push((await pass(sweeper, later(i))).deep)
      expect(kinds).toEqual([true, false, false, true, false, false, true])
      // A new term starts over: deep first, whatever the last term's counter said.
      const next = new Sweeper({ store, reconciler: recordingOfferer(), options: narrow })
      expect((await pass(next, later(7))).deep).toBe(true)
      expect(next.passes).toBe(1)
    })

    it('defaults to deep on passes 1, 31, 61', () => {
      const deep = Array.from({ length: 90 }, (_, i) => i + 1).filter((n) => isDeepPass(n, OPTIONS.deepEvery))
      expect(deep).toEqual([1, 31, 61])
    })

    it('lets a deep pass that comes due replace a parked cursor', async () => {
      const offerer = recordingOfferer()
      const sweeper = new Sweeper({
        store,
        reconciler: offerer,
        options: { ...OPTIONS, deepEvery: 2, maxPages: 3 },
      })
      await pass(sweeper, now)
      expect(sweeper.parked).toBeDefined()
      offerer.take()
      const second = await pass(sweeper, later(1)) // shallow (2 pages) + 1 page of the parked sweep
      expect(second).toMatchObject({ deep: false, resumed: true, parked: true, pages: 3 })
      offerer.take()
      const third = await pass(sweeper, later(2)) // deep again: from the top
      expect(third).toMatchObject({ deep: true, resumed: false, parked: true, pages: 3 })
      const deep = inWindow(docs, ago(192 * HOUR - 2 * MIN), later(-1))
      expect(offerer.take()).toEqual(validIds(deep.slice(0, 600)))
      expect(sweeper.parked?.after?.id).toBe(deep[599]!._id)
    })

    it('leaves the parked cursor for later when the shallow sweep spends the whole budget', async () => {
      const sweeper = new Sweeper({
        store,
        reconciler: recordingOfferer(),
        options: { ...OPTIONS, pageSize: 50, maxPages: 4 },
      })
      await pass(sweeper, now)
      const parked = sweeper.parked
      const report = await pass(sweeper, later(1)) // shallow needs 6 pages of 50: all 4 go to it
      expect(report).toMatchObject({ resumed: false, parked: true, pages: 4 })
      expect(sweeper.parked).toEqual(parked)
    })

    it('logs each invalid document once per process, and counts it every pass', async () => {
      const capture = captureLogs()
      const invalidLogged = new Set<string>()
      for (let term = 0; term < 2; term++) {
        const sweeper = new Sweeper({
          store,
          reconciler: recordingOfferer(),
          options: OPTIONS,
          invalidLogged,
        })
        expect((await pass(sweeper, now, capture.logger)).invalid).toBe(5)
      }
      const lines = capture.matching('warn', 'fails the gating-run schema')
      expect(lines.map((l) => l.fields.runId).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `invalid-0000${i}`))
      expect(String(lines[0]?.fields.problems)).toMatch(/state/)
    })

    it('counts and logs a failed offer and goes on; stops the pass when the forge refuses for its rate limit', async () => {
      const capture = captureLogs()
      const boom = (status: number) => Object.assign(new Error('offer failed'), { cause: { status } })
      const flaky = recordingOfferer((id) => (id === 'hot-00003' ? boom(500) : 'healthy'))
      const sweeper = new Sweeper({
        store,
        reconciler: flaky,
        options: { ...OPTIONS, deepEvery: 1000, concurrency: 1 },
      })
      await pass(sweeper, later(-10_000))
      const report = await pass(sweeper, now, capture.logger)
      expect(report).toMatchObject({ failed: 1, offered: 301, stopped: undefined })
      expect(capture.matching('warn', 'an offer failed')[0]?.fields.runId).toBe('hot-00003')

      const limited = recordingOfferer((id) => (id === 'hot-00003' ? boom(403) : 'healthy'))
      const stopped = await new Sweeper({
        store,
        reconciler: limited,
        options: { ...OPTIONS, concurrency: 1 },
      }).pass({
        forge,
        now,
        log: capture.logger,
      })
      expect(stopped).toMatchObject({ failed: 1, stopped: 'rate-limited', pages: 1, parked: true })
      // Ties go by id, descending: hot-00001 before hot-00000.
      expect(limited.offered).toEqual(['hot-00001', 'hot-00000', 'hot-00003'])
    })

    it('stops offering once the pass is aborted', async () => {
      const controller = new AbortController()
      const offerer = recordingOfferer((id) => {
        if (id === 'hot-00009') controller.abort()
        return 'healthy'
      })
      const sweeper = new Sweeper({ store, reconciler: offerer, options: { ...OPTIONS, concurrency: 1 } })
      const report = await sweeper.pass({ forge, now, log: captureLogs().logger, signal: controller.signal })
      // hot-00009 is the ninth run offered (pairs sharing an instant go by id, descending).
      expect(report).toMatchObject({ stopped: 'aborted', offered: 9, pages: 1 })
      expect(offerer.offered.at(-1)).toBe('hot-00009')
    })

    it('does not count or log an offer cut short by the abort as a failure', async () => {
      const controller = new AbortController()
      const offerer = recordingOfferer((id) => {
        if (id !== 'hot-00009') return 'healthy'
        controller.abort(new Error('worker stopping'))
        const aborted = new Error('forge request aborted: the pass or the worker is stopping')
        aborted.name = 'AbortError'
        return aborted
      })
      const sweeper = new Sweeper({ store, reconciler: offerer, options: { ...OPTIONS, concurrency: 1 } })
      const capture = captureLogs()
      const report = await sweeper.pass({ forge, now, log: capture.logger, signal: controller.signal })
      expect(report).toMatchObject({ stopped: 'aborted', failed: 0 })
      expect(capture.matching('warn', 'an offer failed'), 'a stop was logged as a failed offer').toEqual([])
    })

    it('refuses options that would sweep nothing', () => {
      const make = (options: Partial<SweepOptions>) => () =>
        new Sweeper({ store, reconciler: recordingOfferer(), options: { ...OPTIONS, ...options } })
      expect(make({ deepEvery: 0 })).toThrow(/deepEvery/)
      expect(make({ graceMs: 60 * MIN })).toThrow(/grace/)
      expect(make({ pageSize: 1.5 })).toThrow(/pageSize/)
      expect(make({ graceMs: 0 })).not.toThrow()
    })
  })
}
