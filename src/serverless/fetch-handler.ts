/**
 * The fetch-style handler: `(Request) => Promise<Response>`, what Vercel's Node.js functions, Cloud Run
 * functions behind a fetch adapter and most Node web frameworks can call, for Vercel Cron (GET with
 * `Authorization: Bearer <CRON_SECRET>`) and Cloud Scheduler (an HTTP job whose request carries the
 * schedule time in `X-CloudScheduler-ScheduleTime` and the bearer header the job was given).
 *
 * In order: the method (GET or POST, else 405), the secret (none configured, or one no bearer could match
 * — shorter than the admin token's minimum or padded with spaces: 500 with a ConfigError naming the
 * variable, and nothing runs), the bearer (bearer-secret.ts: 401 without one, 403 for a wrong one), the trigger (the net from `?net=` or
 * the factory, the slot from the header or the request's own time; 400 when unusable, a header longer than
 * an instant refused unread and unechoed), the slot
 * (run-trigger.ts). The answer is the `once --json` object: 200 for `ran`, `slot-taken`, `held`, `paused` and
 * `missed`, 500 for `failed`, `timed-out` and `aborted` — so a platform that retries on 5xx retries only a
 * failed slot, and its retry answers `slot-taken`. A clock-skew refusal (term/clock-check.ts) is 503
 * with the reason: nothing was done, and a retry passes once this instance's clock is right.
 *
 * Not a router: every request to the handler is a trigger. Not tied to the request's signal: a caller
 * that hangs up does not abort a pass that has started (the platform's own timeout ends the instance).
 */
import { ConfigError } from '../config/config-error.js'
import { bearerSecretProblem } from '../config/process-section.js'
import { rememberSecret } from '../config/scrub.js'
import { ClockSkewError } from '../term/clock-check.js'
import { firstLine, type OnceResult } from '../term/one-slot.js'
import { checkBearer } from './bearer-secret.js'
import { boundedTime, runTrigger, type Trigger } from './run-trigger.js'
import { ServerlessError } from './serverless-error.js'
import type { WarmRuntime } from './warm-runtime.js'

/** The handler a platform's HTTP function calls. */
export type FetchHandler = (request: Request) => Promise<Response>

/** Cloud Scheduler's header: the job's schedule time, RFC 3339 in UTC, for unix-cron jobs. */
export const SCHEDULE_TIME_HEADER = 'x-cloudscheduler-scheduletime'

const FAILED: ReadonlySet<OnceResult['outcome']> = new Set(['failed', 'timed-out', 'aborted'])

export interface FetchHandlerOptions {
  /** The net for requests without `?net=`. */
  net: string | undefined
  /** The bearer secret, read on each request (an environment set after import is seen). */
  secret: () => string | undefined
  /** Where the secret is set, for the configuration error that refuses it (`CRON_SECRET`). */
  secretName: string
  /** Where a refused or failed request is logged (never with the secret). */
  warn: (fields: object, message: string) => void
}

/** A fetch handler on `runtime`. */
export function fetchHandler(runtime: WarmRuntime, options: FetchHandlerOptions): FetchHandler {
  return async (request) => {
    const refused = door(request, options)
    if (refused) return refused
    try {
      const trigger = readRequest(request)
      const parts = await runtime.parts()
      const result = await runTrigger(parts, trigger, options.net, new AbortController().signal)
      return answer(FAILED.has(result.outcome) ? 500 : 200, result)
    } catch (error) {
      const status = failureStatus(error)
      options.warn({ err: error, status }, 'serverless: a trigger was not run')
      return answer(status, { error: describeFailure(error) })
    }
  }
}

/** The method, the configured secret and the bearer: a refusal, or undefined to go on. */
function door(request: Request, options: FetchHandlerOptions): Response | undefined {
  if (request.method !== 'GET' && request.method !== 'POST')
    return answer(
      405,
      { error: `method: expected GET or POST; got ${request.method}` },
      { allow: 'GET, POST' },
    )
  const secret = options.secret()
  if (!secret?.trim()) {
    const missing = new ServerlessError(
      'SERVERLESS_SECRET_MISSING',
      'no bearer secret configured: set CRON_SECRET (or the handlers’ `secret`) so that only your scheduler can trigger a slot',
    )
    options.warn({ err: missing }, 'serverless: refused a trigger')
    return answer(500, { error: missing.message })
  }
  rememberSecret(secret)
  const problem = bearerSecretProblem(secret)
  if (problem) {
    // A secret no bearer can match (too short to be one, or padded): a configuration error, not a 403.
    const error = new ConfigError([{ variable: options.secretName, expected: problem }])
    options.warn({ err: error }, 'serverless: refused a trigger')
    return answer(500, { error: describeFailure(error) })
  }
  const verdict = checkBearer(request.headers.get('authorization'), secret)
  if (verdict === 'missing')
    return answer(
      401,
      { error: 'Authorization: expected "Bearer <secret>"; got none' },
      { 'www-authenticate': 'Bearer' },
    )
  if (verdict === 'wrong')
    return answer(403, { error: 'Authorization: the bearer secret is not this function’s' })
  return undefined
}

/**
 * A trigger that could not run: 400 for an unusable trigger; 503 for a clock-skew refusal, a condition of
 * this instance that passes once its clock is set right (a 500 would read as a bug); 500 for the rest.
 */
function failureStatus(error: unknown): number {
  if (error instanceof ServerlessError && error.code === 'SERVERLESS_TRIGGER_INVALID') return 400
  return error instanceof ClockSkewError ? 503 : 500
}

/** The answer's error: a configuration's every issue on one line (scrubbed), else the first line. */
function describeFailure(error: unknown): string {
  return error instanceof ConfigError ? error.message.replace(/\n\s*/g, ' ') : firstLine(error)
}

/** The trigger a request names; its schedule time bounded (boundedTime) before the runtime opens. */
function readRequest(request: Request): Trigger {
  const net = new URL(request.url).searchParams.get('net') ?? undefined
  const timeSource = 'X-CloudScheduler-ScheduleTime'
  const time = boundedTime(request.headers.get(SCHEDULE_TIME_HEADER) ?? undefined, timeSource)
  return { net, time, timeSource }
}

function answer(status: number, body: object, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  })
}
