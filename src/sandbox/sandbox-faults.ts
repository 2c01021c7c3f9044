/**
 * Fault switches: make the sandbox misbehave for requests whose path matches a pattern — latency, a 5xx,
 * malformed or truncated JSON, a dropped connection, or a secondary rate limit — optionally only the
 * next `times` matches. For tests and chaos runs; a sandbox without faults behaves like GitHub.
 */
/** Where a fault applies, common to every kind. */
interface SandboxFaultTarget {
  /** Matched against the URL path: `*` is one path segment's characters, `**` anything. */
  path: string
  /** Upper-cased; every method when absent. */
  method?: string
  /** How many matching requests the fault hits before it disarms itself; forever when absent. */
  times?: number
}

/** What a fault does: wait, answer a status, break the body, drop the connection or rate-limit. */
type SandboxFaultEffect<SecondaryDefaults extends 'written' | 'validated'> =
  | { kind: 'latency'; ms: number }
  | { kind: 'status'; status: number }
  | { kind: 'malformed' }
  | { kind: 'truncated' }
  | { kind: 'drop' }
  | ({ kind: 'secondary-limit' } & (SecondaryDefaults extends 'written'
      ? { retryAfter?: number; status?: 403 | 429 }
      : { retryAfter: number; status: 403 | 429 }))

/** A fault as written. (Typed by hand, not inferred: the public declarations must not name zod.) */
export type SandboxFaultInput = SandboxFaultTarget & SandboxFaultEffect<'written'>
/** A validated fault. */
export type SandboxFault = SandboxFaultTarget & SandboxFaultEffect<'validated'>

/** A fault armed in a sandbox, with its id and the hits it has left. */
export type ArmedFault = SandboxFault & { id: number; remaining: number | null }

/** The armed faults of one sandbox. */
export class SandboxFaults {
  #faults: Array<ArmedFault & { matcher: RegExp }> = []
  #nextId = 1

  /** Arms a validated fault and returns its id. */
  add(fault: SandboxFault): number {
    const id = this.#nextId++
    this.#faults.push({ ...fault, id, remaining: fault.times ?? null, matcher: globToRegExp(fault.path) })
    return id
  }

  /** Disarms one fault (by id) or all of them; returns how many were removed. */
  remove(id?: number): number {
    const before = this.#faults.length
    this.#faults = id === undefined ? [] : this.#faults.filter((f) => f.id !== id)
    return before - this.#faults.length
  }

  /** The armed faults. */
  list(): ArmedFault[] {
    return this.#faults.map(({ matcher: _matcher, ...f }) => ({ ...f }))
  }

  /**
   * The faults hitting this request, consuming one of each one's `times`: every matching `latency` (their
   * delays add up), then at most one other fault — the first armed.
   */
  take(method: string, path: string): { latencyMs: number; fault: SandboxFault | undefined } {
    let latencyMs = 0
    let fault: SandboxFault | undefined
    for (const f of this.#faults) {
      if (f.method !== undefined && f.method !== method) continue
      if (!f.matcher.test(path)) continue
      if (f.kind === 'latency') latencyMs += f.ms
      else if (fault === undefined) fault = f
      else continue
      if (f.remaining !== null) f.remaining--
    }
    this.#faults = this.#faults.filter((f) => f.remaining === null || f.remaining > 0)
    return { latencyMs, fault }
  }
}

/** `*` → one segment's characters, `**` → anything, everything else literal; anchored. */
function globToRegExp(glob: string): RegExp {
  let source = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string
    if (c === '*' && glob[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else source += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}
