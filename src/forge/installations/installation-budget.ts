/**
 * One installation's budget as its forge last saw it: the `x-ratelimit-*` headers of the newest answer to
 * a request made with the installation's token (core resource), and the meter a forge reports to, wrapped
 * so that it also feeds that budget. Several installations' forges share one meter (one hourly line, one
 * status page, lanes named by installation); each keeps its own budget, since each installation has its own
 * hourly limit. Answers to the App's own JWT requests (token mints) carry the App's limit and are left out.
 *
 * Not a rate limiter and not the gauges (rate-limit-watch.ts): a value the reserve check (forge-reserve.ts)
 * reads before a pass.
 */
import type { ForgeBudget } from './forge-reserve.js'
import type { ForgeMeter } from '../meter/meter.js'
import { numberHeader as number, stringHeader as text } from '../meter/rate-limit-watch.js'

type AnswerHeaders = Record<string, string | string[] | undefined>

/** The newest budget seen for one installation. */
export class InstallationBudget {
  #last: ForgeBudget | undefined

  /** Reads an answer's headers: an installation-token answer for the core resource updates the budget. */
  observe(headers: AnswerHeaders, credential: 'installation' | 'app' | 'none' | undefined): void {
    if (credential !== 'installation') return
    const resource = text(headers['x-ratelimit-resource']) ?? 'core'
    if (resource !== 'core') return
    const limit = number(headers['x-ratelimit-limit'])
    const remaining = number(headers['x-ratelimit-remaining'])
    if (limit === undefined || remaining === undefined) return
    const reset = number(headers['x-ratelimit-reset'])
    this.#last = reset === undefined ? { limit, remaining } : { limit, remaining, reset }
  }

  /** The newest budget seen, or undefined before the first answer. */
  current(): ForgeBudget | undefined {
    return this.#last
  }
}

/**
 * `meter` as one installation's forge reports to it: every call goes to `meter` (rate-limit answers
 * labelled with `installation`), rate-limit answers also to `budget`. With `shared`, `flush` is left to the meter's owner (one installation's forge closing — its
 * installation removed — must not end the hour every other installation is still counting).
 */
export function budgetMeter(
  meter: ForgeMeter,
  budget: InstallationBudget,
  shared: boolean,
  installation: number,
): ForgeMeter {
  return {
    registry: meter.registry,
    record: (attempt) => meter.record(attempt),
    observeRateLimit(host, headers, credential) {
      // The gauges are labelled by installation only for its own token's answers (the App's are its own).
      meter.observeRateLimit(
        host,
        headers,
        credential,
        credential === 'installation' ? installation : undefined,
      )
      budget.observe(headers, credential)
    },
    flush: () => (shared ? undefined : meter.flush()),
    totals: () => meter.totals(),
    hourly: () => meter.hourly(),
    current: () => meter.current(),
  }
}
