/**
 * Argument checks both ledger twins share, so a bad call fails the same way on either: a RunLedgerError
 * `RUN_LEDGER_INVALID` naming what was wrong and what was expected. Returns clean copies (dates truncated
 * to whole milliseconds, the precision MongoDB keeps).
 */
import {
  RUN_OUTCOMES,
  type RunAccount,
  type RunClaim,
  type RunFinish,
  type RunFinishEntry,
  UNRUN_OUTCOMES,
} from './run-ledger.js'
import { RunLedgerError, type RunLedgerErrorContext } from './run-ledger-error.js'

const OUTCOMES: readonly string[] = RUN_OUTCOMES

/**
 * The most characters of a run's `error` the ledger keeps. Every status view serves the newest runs'
 * errors, so an unbounded one (a whole response body) would be served on each refresh of the page.
 */
export const MAX_ERROR_CHARS = 2_000

/**
 * A run's error as stored: its first line, at most MAX_ERROR_CHARS, with a marker saying how much was cut
 * so a reader knows it is not whole. (Scrubbing secrets is the caller's: the worker scrubs before it records.)
 */
export function capError(error: string): string {
  const [first = ''] = error.split('\n')
  const kept = first.slice(0, MAX_ERROR_CHARS)
  const cut = error.length - kept.length
  return cut === 0 ? kept : `${kept} … [${cut} more characters not kept]`
}

function invalid(context: RunLedgerErrorContext, detail: string): never {
  throw new RunLedgerError('RUN_LEDGER_INVALID', context, detail)
}

/** A non-empty net name. */
export function checkNet(component: string, operation: string, net: unknown): string {
  if (typeof net !== 'string' || net.trim() === '')
    invalid({ component, operation }, `expected a net name (a non-empty string); got ${JSON.stringify(net)}`)
  return net
}

/** A valid Date, truncated to whole milliseconds. */
export function checkInstant(context: RunLedgerErrorContext, field: string, value: unknown): Date {
  if (!(value instanceof Date) || !Number.isFinite(value.getTime()))
    invalid(context, `expected ${field} to be a valid Date; got ${String(value)}`)
  return new Date(Math.trunc(value.getTime()))
}

/** A whole number ≥ `min`. */
export function checkCount(
  context: RunLedgerErrorContext,
  field: string,
  value: unknown,
  min: number,
): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
    invalid(context, `expected ${field} to be a whole number ≥ ${min}; got ${String(value)}`)
  return value
}

/** The owner and fence of a term. */
export function checkTerm(
  context: RunLedgerErrorContext,
  owner: unknown,
  fence: unknown,
): { owner: string; fence: number } {
  if (typeof owner !== 'string' || owner === '')
    invalid(context, `expected an owner (a non-empty string); got ${JSON.stringify(owner)}`)
  return { owner, fence: checkCount(context, 'fence', fence, 0) }
}

/** A whole claim. */
export function checkClaim(component: string, claim: RunClaim, operation = 'claim'): RunClaim {
  const net = checkNet(component, operation, claim?.net)
  const context = { component, operation, net }
  const slot = checkInstant(context, 'slot', claim.slot)
  const { owner, fence } = checkTerm({ ...context, slot }, claim.owner, claim.fence)
  const clean: RunClaim = {
    net,
    slot,
    owner,
    fence,
    startedAt: checkInstant({ ...context, slot }, 'startedAt', claim.startedAt),
  }
  if (claim.manual !== undefined && typeof claim.manual !== 'boolean')
    invalid({ ...context, slot }, `expected manual to be a boolean; got ${JSON.stringify(claim.manual)}`)
  if (claim.manual) clean.manual = true
  const installation = checkInstallation({ ...context, slot }, claim.installation)
  if (installation !== undefined) clean.installation = installation
  return clean
}

/** A whole account of a slot that will not run. */
export function checkAccount(component: string, entry: RunAccount): RunAccount {
  const net = checkNet(component, 'account', entry?.net)
  const context = { component, operation: 'account', net }
  const slot = checkInstant(context, 'slot', entry.slot)
  const { owner, fence } = checkTerm({ ...context, slot }, entry.owner, entry.fence)
  const unrun: readonly string[] = UNRUN_OUTCOMES
  if (!unrun.includes(entry.outcome))
    invalid(
      { ...context, slot },
      `expected outcome to be one of ${unrun.join(', ')}; got ${JSON.stringify(entry.outcome)}`,
    )
  const clean: RunAccount = {
    net,
    slot,
    owner,
    fence,
    at: checkInstant({ ...context, slot }, 'at', entry.at),
    outcome: entry.outcome,
  }
  if (entry.reason !== undefined) clean.reason = capError(String(entry.reason))
  const installation = checkInstallation({ ...context, slot }, entry.installation)
  if (installation !== undefined) clean.installation = installation
  return clean
}

/** An installation id (a positive safe integer) or undefined: a global net's runs name none. */
function checkInstallation(context: RunLedgerErrorContext, installation: unknown): number | undefined {
  if (installation === undefined) return undefined
  if (typeof installation !== 'number' || !Number.isSafeInteger(installation) || installation <= 0)
    invalid(
      context,
      `expected installation to be a GitHub App installation id (a positive integer) or absent; got ${JSON.stringify(installation)}`,
    )
  return installation
}

/** A whole finish. */
export function checkFinish(context: RunLedgerErrorContext, finish: RunFinish): RunFinish {
  const finishedAt = checkInstant(context, 'finishedAt', finish?.finishedAt)
  if (!OUTCOMES.includes(finish.outcome))
    invalid(
      context,
      `expected outcome to be one of ${OUTCOMES.join(', ')}; got ${JSON.stringify(finish.outcome)}`,
    )
  const attempts = checkCount(context, 'attempts', finish.attempts ?? 1, 0)
  const clean: RunFinish = { finishedAt, outcome: finish.outcome, attempts }
  if (finish.error !== undefined) clean.error = capError(String(finish.error))
  if (finish.requests !== undefined) clean.requests = checkRequests(context, finish.requests)
  return clean
}

/** A whole finish of a batch (`finishMany`), checked as `finish` checks its arguments. */
export function checkFinishEntry(component: string, entry: RunFinishEntry): RunFinishEntry {
  const net = checkNet(component, 'finish', entry?.net)
  const slot = checkInstant({ component, operation: 'finish', net }, 'slot', entry.slot)
  const context = { component, operation: 'finish', net, slot }
  const { owner, fence } = checkTerm(context, entry.owner, entry.fence)
  const clean: RunFinishEntry = { net, slot, owner, fence, finish: checkFinish(context, entry.finish) }
  if (entry.manual !== undefined && typeof entry.manual !== 'boolean')
    invalid(context, `expected manual to be a boolean; got ${JSON.stringify(entry.manual)}`)
  if (entry.manual) clean.manual = true
  return clean
}

function checkRequests(
  context: RunLedgerErrorContext,
  requests: Record<string, number>,
): Record<string, number> {
  const clean: Record<string, number> = {}
  for (const [lane, count] of Object.entries(requests))
    clean[lane] = checkCount(context, `requests.${lane}`, count, 0)
  return clean
}

/** Rejects before the call when the signal is already aborted. */
export function checkNotAborted(context: RunLedgerErrorContext, signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new RunLedgerError('RUN_LEDGER_ABORTED', context, 'the call was aborted before it was sent', {
      cause: signal.reason,
    })
}
