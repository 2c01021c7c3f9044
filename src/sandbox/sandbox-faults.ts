/**
 * Fault switches: make the sandbox misbehave for requests whose path matches a pattern — latency, a 5xx,
 * malformed or truncated JSON, a dropped connection, or a secondary rate limit — optionally only the
 * next `times` matches. For tests and chaos runs; a sandbox without faults behaves like GitHub.
 */
import { z } from 'zod'

const base = {
  /** Matched against the URL path: `*` is one path segment's characters, `**` anything. */
  path: z.string().startsWith('/'),
  method: z.string().toUpperCase().optional(),
  /** How many matching requests the fault hits before it disarms itself; forever when absent. */
  times: z.number().int().positive().optional(),
}

/** A fault switch, validated at the admin route and at start-up. */
export const sandboxFaultSchema = z.discriminatedUnion('kind', [
  z.object({ ...base, kind: z.literal('latency'), ms: z.number().int().min(0).max(60_000) }),
  z.object({ ...base, kind: z.literal('status'), status: z.number().int().min(400).max(599) }),
  z.object({ ...base, kind: z.literal('malformed') }),
  z.object({ ...base, kind: z.literal('truncated') }),
  z.object({ ...base, kind: z.literal('drop') }),
  z.object({
    ...base,
    kind: z.literal('secondary-limit'),
    retryAfter: z.number().int().min(0).max(3600).default(1),
    status: z.union([z.literal(403), z.literal(429)]).default(403),
  }),
])

/** A fault as written. */
export type SandboxFaultInput = z.input<typeof sandboxFaultSchema>
/** A validated fault. */
export type SandboxFault = z.output<typeof sandboxFaultSchema>
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
