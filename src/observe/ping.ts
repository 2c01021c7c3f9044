/**
 * Pings: a net's passes reported to its PING_URL by Healthchecks.io's pinging protocol — `<url>/start`
 * when a pass starts, `<url>` when it ends ok, `<url>/fail` (with a short, scrubbed error as the body) when
 * it ends failed or timed-out — or ok but outside the net's MIN_DURATION/MAX_DURATION (`slow: …`, `too
 * fast: …`) — and `<url>/log` (a note that changes no state) when its term ended during it (`aborted`). Every ping of one pass carries the same run id (`?rid=<uuid>`), so Healthchecks pairs a
 * start with its end even when two replicas' passes overlap. A slot that never ran (skipped, missed, taken
 * by another replica, aborted before it began) is not pinged: the check's own schedule notices the silence.
 *
 * A ping never delays or fails a pass: it is sent without being awaited, bounded by PING_TIMEOUT_MS, and
 * its failure is logged (at warn for the first of a streak, at debug after, at info when pings get through
 * again) and counted (`leasecron_ping_failures_total{net}`). A pass's end ping waits for its start ping to
 * settle, so the two arrive in order. `settle()` lets a short-lived process (`once`) wait for the pings in
 * flight before it exits — each is bounded, so that wait is too.
 *
 * The URL is a secret: it is remembered for scrubbing and named in logs by its origin only. Credentials in
 * it (`https://user:pass@host/…`) are sent as Basic authorization, since fetch refuses them in a URL.
 *
 * Not a retry layer (the next pass pings again) and not the URL's validation (config/ping-url.ts).
 */
import { randomUUID } from 'node:crypto'
import { describePingUrl, parsePingUrl } from '../config/ping-url.js'
import { rememberSecret, scrubbedErrorMessage } from '../config/scrub.js'
import type { PassOutcome } from '../runs/run-ledger.js'
import type { Logger } from './logger.js'
import type { WorkerMetrics } from './metrics.js'

/** How long one ping may take before it is given up: Healthchecks answers in well under a second. */
export const PING_TIMEOUT_MS = 3_000
/** The most characters of an error a `/fail` ping carries. */
const MAX_BODY_CHARS = 500

export interface PingerOptions {
  /** The net's PING_URL (validated by the configuration; a URL parsePingUrl refuses throws here). */
  url: string
  net: string
  /** Bound to the net. */
  log: Logger
  metrics?: WorkerMetrics | undefined
  timeoutMs?: number
}

/** One net's pinger, shared by all its passes in this process. */
export interface Pinger {
  /** Sends `/start` for a pass that is starting (not awaited); the pass's pings go through what it returns. */
  start(): PassPing
  /** Resolves once every ping sent so far has been answered, failed or timed out. Never rejects. */
  settle(): Promise<void>
}

/** The pings of one pass. */
export interface PassPing {
  /**
   * Sends the pass's end (success, `/fail` or `/log`) after its start ping settled; not awaited. A success
   * with a `durationFault` (outside the net's MIN_DURATION/MAX_DURATION) pings `/fail` with it.
   */
  end(ended: { outcome: PassOutcome; error?: unknown; durationFault?: string }): void
}

type PingKind = 'start' | 'success' | 'fail' | 'log'

/** A pinger for `options.url`. Throws a TypeError for a URL that is not http(s) (the configuration refuses those first). */
export function createPinger(options: PingerOptions): Pinger {
  const target = pingTarget(options.url)
  const inFlight = new Set<Promise<void>>()
  const report = failureReporter(options, describePingUrl(target.url))
  const send = (kind: PingKind, rid: string, body?: string) =>
    sendPing(target, kind, rid, body, options.timeoutMs ?? PING_TIMEOUT_MS).then(report)
  const track = (ping: Promise<void>) => {
    inFlight.add(ping)
    void ping.finally(() => inFlight.delete(ping))
    return ping
  }
  return {
    start() {
      const rid = randomUUID()
      const started = track(send('start', rid))
      return {
        end(ended) {
          const { kind, body } =
            ended.outcome === 'ok' && ended.durationFault !== undefined
              ? { kind: 'fail' as const, body: ended.durationFault.slice(0, MAX_BODY_CHARS) }
              : endPing(ended.outcome, ended.error)
          track(started.then(() => send(kind, rid, body)))
        },
      }
    },
    async settle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
    },
  }
}

/** The pinger for a net, or undefined when it has no PING_URL. */
export function netPinger(
  net: { definition: { name: string }; pingUrl?: string | undefined },
  log: Logger,
  metrics?: WorkerMetrics,
): Pinger | undefined {
  if (net.pingUrl === undefined) return undefined
  return createPinger({ url: net.pingUrl, net: net.definition.name, log, metrics })
}

interface PingTarget {
  /** The URL without credentials. */
  url: URL
  headers: Record<string, string>
}

function pingTarget(text: string): PingTarget {
  const url = parsePingUrl(text)
  if (!url) throw new TypeError('a ping URL must be an http:// or https:// URL without a #fragment')
  rememberSecret(text)
  const headers: Record<string, string> = { 'user-agent': 'leasecron' }
  if (url.username !== '' || url.password !== '') {
    const user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`
    url.username = ''
    url.password = ''
  }
  return { url, headers }
}

/** What a pass's end pings: success, `/fail` with the error, or `/log` for a pass its term cut short. */
function endPing(outcome: PassOutcome, error: unknown): { kind: PingKind; body?: string } {
  if (outcome === 'ok') return { kind: 'success' }
  // Why it was cut short when the pass knows (OVERLAP=replace, a pause with --abort), else its term's end.
  if (outcome === 'aborted') {
    const why =
      error === undefined ? 'the term ended during the pass' : scrubbedErrorMessage(error).split('\n')[0]!
    return { kind: 'log', body: `aborted: ${why}; the slot is recorded aborted`.slice(0, MAX_BODY_CHARS) }
  }
  const message = error === undefined ? outcome : scrubbedErrorMessage(error).split('\n')[0]!
  return { kind: 'fail', body: `${outcome}: ${message}`.slice(0, MAX_BODY_CHARS) }
}

/** One ping; resolves why it failed (undefined when it got a 2xx answer). Never rejects. */
async function sendPing(
  target: PingTarget,
  kind: PingKind,
  rid: string,
  body: string | undefined,
  timeoutMs: number,
): Promise<{ kind: PingKind; failure?: string }> {
  const url = new URL(target.url.href)
  if (kind !== 'success') url.pathname = `${url.pathname.replace(/\/+$/, '')}/${kind}`
  url.searchParams.set('rid', rid)
  const headers = body === undefined ? target.headers : { ...target.headers, 'content-type': 'text/plain' }
  try {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body?.cancel()
    return response.ok ? { kind } : { kind, failure: `answered HTTP ${response.status}` }
  } catch (error) {
    return { kind, failure: failureReason(error, timeoutMs) }
  }
}

/** Why a ping got no answer: the timeout, the network error's code, or the error's message (scrubbed). */
function failureReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  if (typeof cause?.code === 'string') return cause.code
  return scrubbedErrorMessage(error)
}

/** Counts each failed ping and logs a streak once: warn at its first failure, info when it ends. */
function failureReporter(options: PingerOptions, where: string) {
  let streak = 0
  return ({ kind, failure }: { kind: PingKind; failure?: string }) => {
    if (failure === undefined) {
      if (streak > 0)
        options.log.info(
          { event: 'ping_recovered', where, failures: streak },
          `ping to ${where} answers again`,
        )
      streak = 0
      return
    }
    options.metrics?.pingFailures.inc({ net: options.net })
    const fields = { event: 'ping_failed', where, kind, reason: failure }
    if (streak++ === 0)
      options.log.warn(
        fields,
        `ping to ${where} (${kind}) failed: ${failure}; the pass is not affected (further failures are logged at debug until a ping gets through)`,
      )
    else options.log.debug(fields, `ping to ${where} (${kind}) failed: ${failure}`)
  }
}
