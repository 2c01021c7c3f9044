/**
 * The sandbox's request log: one entry per forge request, in arrival order, saying what a benchmark needs
 * to explain each rate-limit point — the route and the exact URL asked, the status, whether it spent a
 * point, which validator the request carried, and, for a conditional GET that could not be answered 304,
 * why: the resource changed, or it did not but the etag was issued to another token (the sandbox's
 * `etagPerToken`), or the etag was never issued here.
 *
 * Why it can tell a token rotation from a change: every etag the sandbox sends is remembered with the
 * credential-free tag of the body it was computed from, so a missed `If-None-Match` is compared by content.
 * The memory is bounded (the oldest half is forgotten past `maxIssued`), as is the log (`maxEntries`;
 * `dropped` counts what did not fit). Not the counts (`sandbox-stats.ts`) and not a cache.
 */

/** The validator a request carried: `If-None-Match`, else `If-Modified-Since`, else none. */
export type SandboxValidatorSent = 'etag' | 'last-modified' | 'none'

/** Why a conditional GET was answered in full rather than 304. */
export type SandboxMissReason =
  /** The body differs from the one the validator was issued for. */
  | 'changed'
  /** The body is the one the etag was issued for, but for another credential (a token rotation). */
  | 'other-token'
  /** The etag was never issued by this sandbox (or was forgotten). */
  | 'unknown-etag'
  /** `If-Modified-Since` on a route GitHub sends no `last-modified` for. */
  | 'no-last-modified'

/** One request. `seq` numbers requests from 0 since the last reset. */
export interface SandboxRequestLogEntry {
  seq: number
  installation: string
  method: string
  route: string
  /** Path and query as asked (`/repos/acme/widgets/issues?since=…`). */
  url: string
  status: number | 'dropped'
  /** True when the request spent a point of the installation's primary budget. */
  spent: boolean
  validator: SandboxValidatorSent
  /** Set for a conditional GET answered in full. */
  miss?: SandboxMissReason
}

/** What `record` takes: an entry without its sequence number. */
export type SandboxRequestLogInput = Omit<SandboxRequestLogEntry, 'seq'>

/** The log and the etag memory behind its miss reasons; resettable. */
export class SandboxRequestLog {
  readonly #entries: SandboxRequestLogEntry[] = []
  readonly #issued = new Map<string, string>()
  readonly #maxEntries: number
  readonly #maxIssued: number
  #seq = 0
  #dropped = 0

  constructor(limits: { maxEntries?: number; maxIssued?: number } = {}) {
    this.#maxEntries = limits.maxEntries ?? 200_000
    this.#maxIssued = limits.maxIssued ?? 100_000
  }

  /** Appends one request. */
  record(entry: SandboxRequestLogInput): void {
    const seq = this.#seq++
    if (this.#entries.length >= this.#maxEntries) {
      this.#dropped++
      return
    }
    this.#entries.push({ seq, ...entry })
  }

  /** Remembers that `etag` was sent for a body whose credential-free tag is `content`. */
  issued(etag: string, content: string): void {
    if (this.#issued.size >= this.#maxIssued) {
      // Forget the older half (a Map iterates in insertion order).
      let forget = this.#maxIssued / 2
      for (const key of this.#issued.keys()) {
        if (forget-- <= 0) break
        this.#issued.delete(key)
      }
    }
    this.#issued.set(etag, content)
  }

  /** Why `If-None-Match: asked` missed a body whose credential-free tag is `content`. */
  missReason(asked: string, content: string): SandboxMissReason {
    const tags = asked.split(',').map((tag) => this.#issued.get(tag.trim()))
    if (tags.some((tag) => tag === content)) return 'other-token'
    return tags.some((tag) => tag !== undefined) ? 'changed' : 'unknown-etag'
  }

  /** The entries since the last reset (copies) and how many did not fit. */
  snapshot(): { entries: SandboxRequestLogEntry[]; dropped: number } {
    return { entries: this.#entries.map((e) => ({ ...e })), dropped: this.#dropped }
  }

  /** Forgets the entries (not the etag memory: a validator issued before a reset still explains a miss). */
  reset(): void {
    this.#entries.length = 0
    this.#seq = 0
    this.#dropped = 0
  }
}
