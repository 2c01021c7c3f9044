/**
 * Watches the `x-ratelimit-*` headers of forge answers: sets the rate-limit gauges and warns once when
 * a host's budget falls under 10 %, then says so once when it recovers.
 *
 * Not a rate limiter: it never delays or refuses (Octokit's throttling plugin does that).
 */
import type { Logger } from '../../logger.js'
import type { ForgeMetrics } from './meter-metrics.js'

const LOW_BUDGET_FRACTION = 0.1

type AnswerHeaders = Record<string, string | string[] | undefined>

/** A watcher over one meter's gauges. */
export class RateLimitWatch {
  readonly #low = new Set<string>()

  constructor(
    private readonly metrics: ForgeMetrics,
    private readonly logger: Logger,
  ) {}

  /**
   * Updates the gauges from one answer's headers; warns or recovers on crossing 10 %. `installation`: the
   * installation whose token the request carried (each has its own budget), labelled when given.
   */
  observe(host: string, headers: AnswerHeaders, installation?: number): void {
    const limit = numberHeader(headers['x-ratelimit-limit'])
    const remaining = numberHeader(headers['x-ratelimit-remaining'])
    const reset = numberHeader(headers['x-ratelimit-reset'])
    if (limit === undefined || remaining === undefined) return
    const resource = stringHeader(headers['x-ratelimit-resource']) ?? 'core'
    const labels = installation === undefined ? { host, resource } : { host, resource, installation }
    this.metrics.limit.set(labels, limit)
    this.metrics.remaining.set(labels, remaining)
    if (reset !== undefined) this.metrics.reset.set(labels, reset)
    const key = `${host} ${resource} ${installation ?? ''}`
    const low = limit > 0 && remaining < limit * LOW_BUDGET_FRACTION
    const fields = {
      host,
      resource,
      ...(installation === undefined ? {} : { installation }),
      remaining,
      limit,
      reset,
    }
    if (low && !this.#low.has(key)) {
      this.#low.add(key)
      this.logger.warn(
        { event: 'forge_rate_limit_low', ...fields },
        `forge rate limit: ${remaining} of ${limit} ${resource} requests left on ${host}, under 10%`,
      )
    } else if (!low && this.#low.has(key)) {
      this.#low.delete(key)
      this.logger.info(
        { event: 'forge_rate_limit_recovered', ...fields },
        `forge rate limit: ${remaining} of ${limit} ${resource} requests left on ${host}, recovered`,
      )
    }
  }
}

export function stringHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** A header's value as a finite number, or undefined. */
export function numberHeader(value: string | string[] | undefined): number | undefined {
  const text = stringHeader(value)
  if (text === undefined || text.trim() === '') return undefined
  const n = Number(text)
  return Number.isFinite(n) ? n : undefined
}
