/**
 * Model-based test of lease.run (issue 7 §1): random command sequences over 3–5 candidates, each running
 * the real run() on a simulated clock of its own, against one real MemoryStore behind a simulated network
 * (see sim-world.ts). Commands advance time; delay the request or the answer of, lose the answer of, fail,
 * swallow or resend a candidate's (or the holder's) next store call; black out the store for everyone;
 * stall a candidate's event loop; stop one (SIGTERM); kill one and start a new owner in its place; step a
 * host's wall clock within ttl/6 of the others. After every instant the world checks that
 * 1. no work runs outside a held term (the store holds the lease for its owner against every other clock);
 * 2. no term outlives its step-down deadline (TermInfo.stepDownAt) while its loop is free to run timers,
 *    and none goes on once the store refused its renewal;
 * 3. no two terms overlap, except after a stall of the earlier holder (by at most the stall); a release
 *    sent before a term (a late or resent release, or the release after an unanswered acquire) never
 *    ends that term: releases name their own term's token, so the run asserts 0 stale-release terms;
 * 4. every unanswered acquire is followed by a release;
 * and once every fault healed, that
 * 5. a holder is elected within ttl + the skew spread + one jittered retry + round trips, a clean stop of
 *    the holder hands over within one jittered retry, and every stopped candidate finished and released
 *    (except a grant that landed after its owner's release: the ADR's residual case, counted apart).
 *
 * Seeded: the seed is printed; LEASECRON_MODEL_SEED reruns the same runs. To replay only a failing case, add
 * LEASECRON_MODEL_PATH (fast-check's `path`) and LEASECRON_MODEL_REPLAY (the `replayPath` in the printed
 * counterexample); the failure message spells the whole command line. LEASECRON_MODEL_RUNS changes the
 * number of runs (10,000 by default).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { addStats, emptyStats, type SimFault, type SimOp, World, type WorldStats } from './sim-world.js'

const TTL = 300
const SKEW_LIMIT = Math.ceil(TTL / 6) - 1
const MAX_SLOTS = 5

function envInteger(name: string): number | undefined {
  const text = process.env[name]
  if (text === undefined || text === '') return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`)
  return value
}

const seed = envInteger('LEASECRON_MODEL_SEED') ?? Math.floor(Math.random() * 2 ** 31)
const numRuns = envInteger('LEASECRON_MODEL_RUNS') ?? 10_000
const path = process.env.LEASECRON_MODEL_PATH || undefined
const replayPath = process.env.LEASECRON_MODEL_REPLAY || undefined

/** One step of a sequence; its label names the slot it resolved to, once it ran. */
class Step implements fc.AsyncCommand<object, World> {
  #label: string
  constructor(
    label: string,
    readonly slot: number | undefined,
    readonly act: (world: World, slot: number) => Promise<void>,
  ) {
    this.#label = label
  }
  check(): boolean {
    return true
  }
  async run(_model: object, world: World): Promise<void> {
    const slot = (this.slot ?? 0) % world.slots.length
    if (this.slot !== undefined) this.#label = this.#label.replace('{slot}', String(slot))
    await this.act(world, slot)
  }
  toString(): string {
    return this.#label
  }
}

const slotArb = fc.integer({ min: 0, max: MAX_SLOTS - 1 })
const faultDelayArb = fc.integer({ min: 1, max: 2 * TTL })
const faultArb: fc.Arbitrary<SimFault> = fc.oneof(
  faultDelayArb.map((ms) => ({ kind: 'delay-request', ms }) as const),
  faultDelayArb.map((ms) => ({ kind: 'delay-answer', ms }) as const),
  fc.constant({ kind: 'lose-answer' } as const),
  fc.constant({ kind: 'fail' } as const),
  fc.constant({ kind: 'hang' } as const),
  fc.integer({ min: 0, max: 2 * TTL }).map((ms) => ({ kind: 'replay', ms }) as const),
)
const outageFaultArb: fc.Arbitrary<SimFault> = fc.constantFrom<SimFault>(
  { kind: 'fail' },
  { kind: 'hang' },
  { kind: 'lose-answer' },
)
const show = (fault: SimFault) => ('ms' in fault ? `${fault.kind} ${fault.ms} ms` : fault.kind)

const advanceArb = fc
  .integer({ min: 1, max: TTL })
  .map((ms) => new Step(`advance ${ms} ms`, undefined, (w) => w.advance(ms)))
/** A fault on one call: the next call of a slot (any, or of one operation), or the holder's next call. */
const faultStepArb = fc
  .tuple(
    fc.oneof(slotArb, fc.constant('holder' as const)),
    fc.constantFrom<SimOp | 'any'>('any', 'any', 'acquire', 'renew', 'release'),
    faultArb,
  )
  .map(([slot, op, fault]) =>
    slot === 'holder'
      ? new Step(`next ${op === 'any' ? 'call' : op} of the holder: ${show(fault)}`, undefined, (w) =>
          w.arm('holder', op, fault),
        )
      : new Step(`next ${op === 'any' ? 'call' : op} of slot {slot}: ${show(fault)}`, slot, (w, s) =>
          w.arm(s, op, fault),
        ),
  )
const commandArbs = [
  advanceArb,
  advanceArb,
  advanceArb,
  advanceArb,
  faultStepArb,
  faultStepArb,
  faultStepArb,
  fc
    .tuple(fc.integer({ min: 1, max: 2 * TTL }), outageFaultArb)
    .map(([ms, fault]) => new Step(`outage ${ms} ms: ${show(fault)}`, undefined, (w) => w.outage(ms, fault))),
  fc
    .tuple(slotArb, fc.integer({ min: 1, max: 2 * TTL }), fc.boolean())
    .map(
      ([slot, ms, timersFirst]) =>
        new Step(
          `stall slot {slot} for ${ms} ms${timersFirst ? '' : ' (resume by due time)'}`,
          slot,
          (w, s) => w.stall(s, ms, timersFirst),
        ),
    ),
  slotArb.map((slot) => new Step('abort slot {slot}', slot, (w, s) => w.abort(s))),
  slotArb.map((slot) => new Step('restart slot {slot} as a new owner', slot, (w, s) => w.restart(s))),
  fc
    .tuple(slotArb, fc.integer({ min: 0, max: SKEW_LIMIT }))
    .map(([slot, skew]) => new Step(`skew slot {slot} to +${skew} ms`, slot, (w, s) => w.skew(s, skew))),
]

const worldArb = fc.record({
  slots: fc.integer({ min: 3, max: MAX_SLOTS }),
  skews: fc.array(fc.integer({ min: 0, max: SKEW_LIMIT }), { minLength: MAX_SLOTS, maxLength: MAX_SLOTS }),
  seed: fc.nat(),
})

function summary(stats: WorldStats, ms: number): string {
  const faults = Object.entries(stats.faults)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  return [
    `lease.run model: ${stats.runs} runs in ${(ms / 1000).toFixed(1)} s (seed ${seed})`,
    `  terms ${stats.terms}, hand-overs ${stats.handovers}, stalls ${stats.stalls}, crashes ${stats.crashes}, aborts ${stats.aborts}`,
    `  faults: ${faults}`,
    `  overlaps after a stall: ${stats.stallOverlaps} (max ${stats.stallOverlapMaxMs.toFixed(1)} ms, at most ${(100 * stats.stallOverlapMaxShare).toFixed(0)}% of the stall)`,
    `  terms whose lease a stale release deleted: ${stats.staleReleaseTerms}; overlaps ${stats.staleReleaseOverlaps} (max ${stats.staleReleaseOverlapMaxMs.toFixed(1)} ms)`,
    `  grants landing after a later release (ADR residual, costs a ttl of election): ${stats.lateGrants}`,
    `  slowest election after healing: ${stats.takeoverMaxMs.toFixed(1)} ms (bound ${stats.takeoverBoundMs.toFixed(1)} ms)`,
    `  clean hand-overs: ${stats.cleanHandOvers}, slowest ${stats.cleanHandOverMaxMs.toFixed(1)} ms (bound ${stats.cleanHandOverBoundMs.toFixed(1)} ms)`,
  ].join('\n')
}

describe('lease.run under a model of faults, stalls, skews and restarts', () => {
  it('keeps every invariant across random command sequences over 3–5 candidates', async () => {
    console.log(
      `lease.run model: seed ${seed}, ${numRuns} runs — replay with LEASECRON_MODEL_SEED=${seed} ` +
        'npx vitest run test/lease/run-model.test.ts',
    )
    const total = emptyStats()
    const started = performance.now()
    const property = fc.assert(
      fc.asyncProperty(
        worldArb,
        fc.commands(commandArbs, { size: 'max', maxCommands: 25, replayPath }),
        async (config, commands) => {
          const world = new World({ ...config, ttlMs: TTL })
          await world.begin()
          await fc.asyncModelRun(() => ({ model: {}, real: world }), commands)
          await world.finish()
          addStats(total, world.stats)
        },
      ),
      { seed, numRuns, path, endOnFailure: path !== undefined },
    )
    await property.catch((error: unknown) => {
      const text = error instanceof Error ? error.message : String(error)
      const failingPath = /path: "([^"]+)"/.exec(text)?.[1]
      const failingReplay = /replayPath="([^"]*)"/.exec(text)?.[1] ?? ''
      if (failingPath) {
        console.log(
          `lease.run model: replay the failing case with LEASECRON_MODEL_SEED=${seed} ` +
            `LEASECRON_MODEL_PATH=${failingPath} LEASECRON_MODEL_REPLAY='${failingReplay}' ` +
            'npx vitest run test/lease/run-model.test.ts',
        )
      }
      throw error
    })
    console.log(summary(total, performance.now() - started))
    // A model that never elects, hands over or overlaps proves nothing: the runs must reach these states.
    expect(total.handovers, 'the lease never changed hands: the model exercised no election').toBeGreaterThan(
      0,
    )
    expect(
      total.staleReleaseTerms,
      'a release of an earlier term ended a later one: two terms could serve the lease at once',
    ).toBe(0)
    if (numRuns >= 1_000) {
      expect(
        total.stallOverlaps,
        'no stall ever caused an overlap: stalls were not modelled',
      ).toBeGreaterThan(0)
      for (const kind of ['delay-request', 'delay-answer', 'lose-answer', 'fail', 'hang', 'replay']) {
        expect(
          total.faults[kind] ?? 0,
          `no ${kind} fault reached the store: faults were not applied`,
        ).toBeGreaterThan(0)
      }
    }
  }, 600_000)

  it('lets a holder that stalls past its deadline overlap its successor by no more than the stall', async () => {
    const world = new World({ slots: 3, ttlMs: TTL, skews: [0, 0, 0], seed: 7 })
    await world.begin()
    await world.advance(50)
    const holder = world.terms[0]?.proc
    expect(holder, 'nobody was elected in 50 ms').toBeDefined()
    await world.stall(holder!.slot, 2 * TTL, true)
    await world.advance(3 * TTL)
    await world.finish()
    const held = world.terms[0]!
    expect(held.end, 'the stalled holder did not step down as soon as its loop ran again').toBe(50 + 2 * TTL)
    expect(world.stats.stallOverlaps, 'the checker did not see the overlap a stall causes').toBeGreaterThan(0)
    expect(world.stats.stallOverlapMaxMs).toBeLessThanOrEqual(2 * TTL)
  })

  it('sees the overlap a wall clock skewed beyond ttl/6 causes, and bounds it by the excess', async () => {
    const world = new World({ slots: 2, ttlMs: TTL, skews: [0, 0], seed: 11 })
    await world.begin()
    await world.advance(50)
    const holder = world.terms[0]?.proc
    expect(holder, 'nobody was elected in 50 ms').toBeDefined()
    const skew = TTL / 6 + 200
    await world.skew(1 - holder!.slot, skew)
    await world.advance(2 * TTL)
    await world.finish()
    expect(world.stats.skewOverlaps, 'a clock far ahead took no lease from a healthy holder').toBeGreaterThan(
      0,
    )
    expect(world.stats.skewOverlapMaxMs, 'the overlap outgrew the excess skew').toBeLessThanOrEqual(
      skew - TTL / 6,
    )
  })
})
