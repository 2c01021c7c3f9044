/**
 * The churn request's schema (sandbox-churn.ts): what the admin route and the `churn` start option accept.
 * A module of its own so that the public declarations of sandbox-churn.ts name no zod type; the annotation
 * checks the schema against its two types.
 */
import * as z from 'zod'
import type { SandboxChurn, SandboxChurnInput } from './sandbox-churn.js'

/** A churn request as the admin route and the `churn` option take it. */
export const sandboxChurnSchema: z.ZodType<SandboxChurn, SandboxChurnInput> = z.object({
  /** The share of each kind's candidates to change, 0…1 (rounded to whole records). */
  fraction: z.number().min(0).max(1),
  /** Chooses which records change; the same seed over the same data changes the same records. */
  seed: z.number().int(),
  /** The kinds to churn; all three by default. */
  kinds: z
    .array(z.enum(['pulls', 'statuses', 'issues']))
    .min(1)
    .default(['pulls', 'statuses', 'issues']),
})
