/**
 * Accounts for every rate-limit point a run spent, from the sandbox's own request log: each paid request
 * gets one reason, and the floor is what the churn and the writes imply — writes, reads of resources that
 * really changed since the client last read them, and the first read of each resource in a term.
 *
 * Reasons, in the order they are decided:
 * - `write`: a paid request that is not a GET (POST, PATCH, …);
 * - `first-read`: a GET without a validator of a resource (path, query aside) not yet read in this term —
 *   a cold cache, unavoidable once per term;
 * - `changed`: the resource was changed (by the churn) since the client last read it; `own-write` when the
 *   change since then was only the client's own write (it could know what it wrote);
 * - `token-rotation`: the client held an etag, the body is the one it was issued for, but for another
 *   token (the sandbox's `etagPerToken`);
 * - `one-time-url`: no validator, the resource was read this term, but never at this URL (a query that
 *   moved, e.g. a `since` watermark);
 * - `no-validator`: no validator for a URL already asked this term (the cache dropped or never kept it);
 * - `unexplained`: anything else (should stay 0).
 *
 * Not a benchmark (the `budget` scenario runs the passes) and not the sandbox (which logs, and does not judge).
 */
import type { SandboxRequestLogEntry } from '../src/sandbox/sandbox-request-log.js'

export const REASONS = [
  'write',
  'first-read',
  'changed',
  'own-write',
  'token-rotation',
  'one-time-url',
  'no-validator',
  'unexplained',
] as const
export type PointReason = (typeof REASONS)[number]

/** Resources a churn or a write changed, stamped with the log position they happened at. */
export interface Touch {
  seq: number
  paths: string[]
  own: boolean
}

/** What the ledger reads: the log, where terms and passes began (log positions), what changed when. */
export interface LedgerInput {
  entries: SandboxRequestLogEntry[]
  termStarts: number[]
  passStarts: number[]
  touches: Touch[]
}

/** Points by route and reason, for the whole run and for the passes after the first. */
export interface PointsLedger {
  /** `route` → reason → points, the whole run. */
  byRoute: Record<string, Partial<Record<PointReason, number>>>
  total: Partial<Record<PointReason, number>>
  /** The same after the first pass (the term's cold pass excluded). */
  steady: Partial<Record<PointReason, number>>
  /** Points per pass, in pass order. */
  perPass: number[]
  /** writes + changed + first reads: what no client could save. */
  floor: number
  /** The floor after the first pass. */
  steadyFloor: number
}

const FLOOR_REASONS: readonly PointReason[] = ['write', 'changed', 'first-read']

/** The resources a write changes: a posted status changes its commit's combined status. */
export function touchedByWrite(method: string, url: string): string[] {
  const path = url.split('?')[0] as string
  const status = /^(\/repos\/[^/]+\/[^/]+)\/statuses\/([^/]+)$/.exec(path)
  if (method === 'POST' && status !== null) return [`${status[1]}/commits/${status[2]}/status`]
  return []
}

/** The resources one churn result changed (`owner/name#n` records, `owner/name@sha` head commits). */
export function touchedByChurn(churn: { pulls: string[]; statuses: string[]; issues: string[] }): string[] {
  const record = (ref: string) => ref.split('#') as [string, string]
  return [
    ...churn.issues.flatMap((r) => [
      `/repos/${record(r)[0]}/issues`,
      `/repos/${record(r)[0]}/issues/${record(r)[1]}`,
    ]),
    ...churn.pulls.flatMap((r) => [
      `/repos/${record(r)[0]}/issues`,
      `/repos/${record(r)[0]}/pulls/${record(r)[1]}`,
    ]),
    ...churn.statuses.map((r) => {
      const [repo, sha] = r.split('@') as [string, string]
      return `/repos/${repo}/commits/${sha}/status`
    }),
  ]
}

/** Classifies every paid request of the log (see the module doc). */
export function accountPoints(input: LedgerInput): PointsLedger {
  const ledger: PointsLedger = { byRoute: {}, total: {}, steady: {}, perPass: [], floor: 0, steadyFloor: 0 }
  const state = new LedgerState(input)
  for (const entry of input.entries) {
    const reason = state.classify(entry)
    if (reason === undefined) continue
    // The sandbox's route template names its method (`GET /repos/:owner/:repo/pulls/:number`).
    const row = ledger.byRoute[entry.route] ?? {}
    ledger.byRoute[entry.route] = row
    add(row, reason)
    add(ledger.total, reason)
    const pass = passOf(input.passStarts, entry.seq)
    ledger.perPass[pass] = (ledger.perPass[pass] ?? 0) + 1
    if (pass > 0) add(ledger.steady, reason)
  }
  for (let i = 0; i < input.passStarts.length; i++) ledger.perPass[i] ??= 0
  ledger.floor = sumOf(ledger.total, FLOOR_REASONS)
  ledger.steadyFloor = sumOf(ledger.steady, FLOOR_REASONS)
  return ledger
}

class LedgerState {
  readonly #input: LedgerInput
  /** Per resource: the log position of its last read (any term) — for what changed since. */
  readonly #lastRead = new Map<string, number>()
  #termRead = new Set<string>()
  #termUrls = new Set<string>()
  #term = 0
  #touch = 0
  /** Per resource: the latest touch applied so far, and whether it was the client's own. */
  readonly #touched = new Map<string, { seq: number; own: boolean }>()

  constructor(input: LedgerInput) {
    this.#input = input
  }

  classify(entry: SandboxRequestLogEntry): PointReason | undefined {
    this.#advance(entry.seq)
    const path = entry.url.split('?')[0] as string
    if (entry.method !== 'GET') {
      for (const p of touchedByWrite(entry.method, entry.url))
        this.#touched.set(p, { seq: entry.seq, own: true })
      return entry.spent ? 'write' : undefined
    }
    const reason = entry.spent ? this.#readReason(entry, path) : undefined
    if (entry.status === 200 || entry.status === 304) {
      this.#lastRead.set(path, entry.seq)
      this.#termRead.add(path)
      this.#termUrls.add(entry.url)
    }
    return reason
  }

  #readReason(entry: SandboxRequestLogEntry, path: string): PointReason {
    const last = this.#lastRead.get(path)
    const touch = this.#touched.get(path)
    const changed = last !== undefined && touch !== undefined && touch.seq > last
    if (entry.validator === 'none' && !this.#termRead.has(path)) return 'first-read'
    if (changed) return touch.own ? 'own-write' : 'changed'
    if (entry.miss === 'other-token') return 'token-rotation'
    if (entry.miss === 'changed') return 'changed'
    if (entry.validator === 'none') return this.#termUrls.has(entry.url) ? 'no-validator' : 'one-time-url'
    return 'unexplained'
  }

  /** Applies the churns and term starts that happened before log position `seq`. */
  #advance(seq: number): void {
    const { touches, termStarts } = this.#input
    while (this.#touch < touches.length && (touches[this.#touch] as Touch).seq <= seq) {
      const t = touches[this.#touch++] as Touch
      for (const p of t.paths) this.#touched.set(p, { seq: t.seq - 0.5, own: t.own })
    }
    while (this.#term + 1 < termStarts.length && (termStarts[this.#term + 1] as number) <= seq) {
      this.#term++
      this.#termRead = new Set()
      this.#termUrls = new Set()
    }
  }
}

function passOf(passStarts: number[], seq: number): number {
  let pass = 0
  while (pass + 1 < passStarts.length && (passStarts[pass + 1] as number) <= seq) pass++
  return pass
}

function add(row: Partial<Record<PointReason, number>>, reason: PointReason): void {
  row[reason] = (row[reason] ?? 0) + 1
}

function sumOf(row: Partial<Record<PointReason, number>>, reasons: readonly PointReason[]): number {
  return reasons.reduce((n, r) => n + (row[r] ?? 0), 0)
}
