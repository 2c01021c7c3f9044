/**
 * The clock guard: this replica's wall-clock offset to the store's server, and whether a net may campaign
 * with it. The lease stamps expiries with each caller's wall clock, and a term's step-down margin (ttl/6)
 * is what absorbs clock offset between holder and successor (ADR-117); beyond it two terms can overlap. So
 * a replica whose clock is off from the server by more than a net's ttl/6 stops campaigning for that net
 * until it is back under, and says why once.
 *
 * The offset is estimated from the server's own answers (clock-probe.ts): the server's time minus the
 * midpoint of the round trip, NTP-style, keeping the sample with the shortest round trip of the last few
 * (the one whose midpoint is least uncertain). It is not a clock discipline: it corrects nothing, it only
 * holds back. A term already being served is not ended by it (the term's own deadline still applies).
 */

/** Samples kept: the shortest round trip among these is the estimate. */
export const OFFSET_SAMPLES = 5

/** One measurement: this replica's wall clock minus the server's, and the round trip it came from. */
export interface OffsetSample {
  offsetMs: number
  roundTripMs: number
}

/**
 * The sample of one answer: the server stamped `serverMs` somewhere between sending (`sentAtMs`) and
 * receiving (`receivedAtMs`, both on this replica's wall clock); the best guess is the midpoint.
 * `roundTripMs` is measured on the monotonic clock (a wall clock may step mid-call).
 */
export function offsetSample(sentAtMs: number, serverMs: number, roundTripMs: number): OffsetSample {
  return { offsetMs: sentAtMs + roundTripMs / 2 - serverMs, roundTripMs }
}

/** Whether a net may campaign with the current offset, and if not, why. */
export type ClockVerdict =
  | { campaign: true; offsetMs: number | undefined; limitMs: number }
  | { campaign: false; offsetMs: number; limitMs: number; reason: string }

/**
 * The rule: hold back while |offset| > ttl/6. An offset not measured yet does not hold back (the guard
 * only stops a replica it has seen off); `enforce` false (LEASECRON_CLOCK_GUARD=off) never holds back.
 */
export function clockVerdict(offsetMs: number | undefined, ttlMs: number, enforce = true): ClockVerdict {
  const limitMs = ttlMs / 6
  if (offsetMs === undefined || !enforce || Math.abs(offsetMs) <= limitMs)
    return { campaign: true, offsetMs, limitMs }
  const direction = offsetMs > 0 ? 'ahead of' : 'behind'
  return {
    campaign: false,
    offsetMs,
    limitMs,
    reason: `this replica's clock is ${Math.round(Math.abs(offsetMs))} ms ${direction} the store's server, more than ttl/6 = ${Math.round(limitMs)} ms: its leases' expiries cannot be trusted against other replicas'`,
  }
}

/** What the guard tells the worker about one net when its verdict changes. */
export interface ClockGuardChange {
  lease: string
  verdict: ClockVerdict
}

/** The estimate kept from the probe's samples, and each net's verdict on it. */
export class ClockGuard {
  readonly #samples: OffsetSample[] = []
  readonly #enforce: boolean
  readonly #onChange: (change: ClockGuardChange) => void
  readonly #heldBack = new Map<string, boolean>()

  /** `onChange` hears a net's verdict each time it flips (logged once per change by the worker). */
  constructor(options: { enforce: boolean; onChange: (change: ClockGuardChange) => void }) {
    this.#enforce = options.enforce
    this.#onChange = options.onChange
  }

  /** Adds one measurement; the oldest beyond OFFSET_SAMPLES is dropped. */
  record(sample: OffsetSample): void {
    this.#samples.push(sample)
    if (this.#samples.length > OFFSET_SAMPLES) this.#samples.shift()
  }

  /** The estimate: the offset of the kept sample with the shortest round trip; undefined before any. */
  offsetMs(): number | undefined {
    let best: OffsetSample | undefined
    // Ties go to the newest, so a clock that was corrected is seen as soon as the old samples tie.
    for (const s of this.#samples) if (!best || s.roundTripMs <= best.roundTripMs) best = s
    return best?.offsetMs
  }

  /**
   * How far this replica's ticks lag its own clock to follow the server's (term/store-clock.ts): the
   * estimate while the guard is on, 0 before the first sample or with LEASECRON_CLOCK_GUARD=off — an
   * operator who turned the guard off does not take the server's clock for the fleet's.
   */
  tickOffsetMs(): number {
    return this.#enforce ? (this.offsetMs() ?? 0) : 0
  }

  /** Whether the net with lease `lease` and `ttlMs` may campaign now; reports a flip to `onChange`. */
  verdict(lease: string, ttlMs: number): ClockVerdict {
    const verdict = clockVerdict(this.offsetMs(), ttlMs, this.#enforce)
    const heldBack = !verdict.campaign
    if ((this.#heldBack.get(lease) ?? false) !== heldBack) this.#onChange({ lease, verdict })
    this.#heldBack.set(lease, heldBack)
    return verdict
  }

  /** The leases held back now (as of their last verdict), for /readyz. */
  heldBack(): string[] {
    return [...this.#heldBack].filter(([, held]) => held).map(([lease]) => lease)
  }
}
