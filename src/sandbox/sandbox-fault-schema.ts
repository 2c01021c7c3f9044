/**
 * The fault switch's schema (sandbox-faults.ts): what the admin route and the `faults` start option accept.
 * A module of its own so that the public declarations of sandbox-faults.ts name no zod type.
 */
import * as z from 'zod'
import type { SandboxFault, SandboxFaultInput } from './sandbox-faults.js'

const base = {
  /** Matched against the URL path: `*` is one path segment's characters, `**` anything. */
  path: z.string().startsWith('/'),
  method: z.string().toUpperCase().optional(),
  /** How many matching requests the fault hits before it disarms itself; forever when absent. */
  times: z.number().int().positive().optional(),
}

/**
 * A fault switch, validated at the admin route and at start-up. The annotation checks the schema against
 * the two types of sandbox-faults.ts.
 */
export const sandboxFaultSchema: z.ZodType<SandboxFault, SandboxFaultInput> = z.discriminatedUnion('kind', [
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
