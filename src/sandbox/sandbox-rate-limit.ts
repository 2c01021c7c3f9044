/**
 * The sandbox's primary rate limit: an hourly budget per installation (GitHub's 5,000 by default), with
 * the `x-ratelimit-*` headers GitHub sends and a 403 once it is spent. A window opens at the first
 * request after the previous one closed, as GitHub's does. Not the secondary limit (a fault switch).
 */

/** One installation's budget as headers and `/rate_limit` report it. */
export interface RateLimitState {
  limit: number
  remaining: number
  used: number
  /** Epoch seconds when the window closes. */
  reset: number
  resource: 'core'
}

/** Options for the budget. */
export interface SandboxRateLimitOptions {
  /** Requests per window; 5000 by default. */
  limit?: number
  /** Window length; one hour by default (tests shrink it to a second). */
  windowMs?: number
}

interface Window {
  start: number
  used: number
  limit: number
}

/** Per-installation budgets. */
export class SandboxRateLimit {
  readonly #limit: number
  readonly #windowMs: number
  readonly #clock: () => number
  readonly #windows = new Map<string, Window>()

  constructor(options: SandboxRateLimitOptions, clock: () => number) {
    this.#limit = options.limit ?? 5000
    this.#windowMs = options.windowMs ?? 3_600_000
    this.#clock = clock
  }

  /** Spends one request if any is left; `allowed` false means answer 403. Either way returns the state after. */
  take(installation: string): { allowed: boolean; state: RateLimitState } {
    const window = this.#current(installation)
    const allowed = window.used < window.limit
    if (allowed) window.used++
    return { allowed, state: this.#state(window) }
  }

  /** The state without spending. */
  peek(installation: string): RateLimitState {
    return this.#state(this.#current(installation))
  }

  /**
   * Opens a fresh window now with the given remaining (and optionally limit), for tests of low budgets;
   * a fresh window, so the next request cannot slip into a new one before the values apply.
   */
  set(installation: string, values: { remaining?: number; limit?: number }): RateLimitState {
    const current = this.#current(installation)
    const limit = values.limit ?? current.limit
    const used =
      values.remaining === undefined ? Math.min(current.used, limit) : Math.max(0, limit - values.remaining)
    const window = { start: this.#clock(), used, limit }
    this.#windows.set(installation, window)
    return this.#state(window)
  }

  #current(installation: string): Window {
    const now = this.#clock()
    let window = this.#windows.get(installation)
    if (window === undefined || now >= window.start + this.#windowMs) {
      window = { start: now, used: 0, limit: window?.limit ?? this.#limit }
      this.#windows.set(installation, window)
    }
    return window
  }

  #state(window: Window): RateLimitState {
    return {
      limit: window.limit,
      remaining: Math.max(0, window.limit - window.used),
      used: window.used,
      reset: Math.ceil((window.start + this.#windowMs) / 1000),
      resource: 'core',
    }
  }
}
