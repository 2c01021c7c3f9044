/**
 * The gating run: a review run whose verdict gates a pull request's merge through one commit-status
 * context. The review system that starts runs records them; the merge-gate sweeper reads them, offers each
 * to the reconciler, and writes back only `settledAt` and `relaunchRequestedAt`.
 *
 * This module is the model and its zod schemas (input, patch, stored document) — not a store and not the
 * reconciler. Instants are UTC milliseconds, as BSON keeps them.
 */
import * as z from 'zod'
import { GateRunError } from './gate-run-error.js'
import { plainLine } from '../../plain-text.js'

/** A run's lifecycle as the review system reports it. */
export const GATE_RUN_STATES = ['running', 'succeeded', 'failed', 'died'] as const
export type GateRunState = (typeof GATE_RUN_STATES)[number]

/** One gating run. */
export interface GatingRun {
  /** The review system's id; also the `/runs/<id>` of its target URL. */
  id: string
  /** `owner/name`. */
  repo: string
  /** The pull request number. */
  pull: number
  /** The commit whose status the run gates (40 or 64 lowercase hex). */
  headSha: string
  /** The commit-status context the verdict is posted under; the net's default when absent. */
  gateContext?: string | undefined
  /**
   * The GitHub App installation whose repository it is: only the sweeper acting as that installation
   * settles it. Absent: the run belongs to the installation the worker's global nets act as (the one of
   * GITHUB_INSTALLATION_ID, the first of GITHUB_INSTALLATION_IDS; nobody's under `all`).
   */
  installation?: number | undefined
  state: GateRunState
  /** Why a run failed or died, in the review system's words. */
  reason?: string | undefined
  /** The review system's last word on the run; a `running` run silent for `staleAfter` counts as dead. */
  updatedAt: Date
  /** Set once the gate needs nothing more from this run (verdict posted, PR closed, head moved…). */
  settledAt?: Date | undefined
  /** Set when the reconciler posted the synthetic failure and asks the review system to relaunch. */
  relaunchRequestedAt?: Date | undefined
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/
const REPO = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/
const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/

const validDate = z.date().refine((d) => !Number.isNaN(d.getTime()), 'an invalid Date')
// Stored documents may carry null for an absent optional field (BSON has no undefined).
const optionalDate = validDate.nullish().transform((d) => d ?? undefined)
const optionalText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .nullish()
    .transform((s) => s ?? undefined)

const runFields = {
  repo: z.string().regex(REPO, 'owner/name'),
  pull: z
    .number()
    .int()
    .positive()
    .max(2 ** 31),
  headSha: z.string().regex(SHA, '40 or 64 lowercase hex digits'),
  gateContext: optionalText(255),
  installation: z
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .nullish()
    .transform((n) => n ?? undefined),
  state: z.enum(GATE_RUN_STATES),
  reason: optionalText(1000),
  updatedAt: validDate,
  settledAt: optionalDate,
  relaunchRequestedAt: optionalDate,
}

/** A gating run as `recordGatingRun` accepts it. */
const gatingRunSchema = z.object({
  id: z.string().regex(ID, 'an id of 1-200 [A-Za-z0-9._:-]'),
  ...runFields,
})

/** A gating run as stored in `gate_runs`: the id is `_id`. */
const gateRunDocumentSchema = z.object({ _id: gatingRunSchema.shape.id, ...runFields })

/** What `updateGatingRun` may change. `null` clears an optional field; absent leaves it. */
export interface GatingRunPatch {
  /** Required: an update is the review system's word at this instant. */
  updatedAt: Date
  state?: GateRunState
  reason?: string | null
  headSha?: string
  gateContext?: string | null
  /** `null` reopens a settled run (a relaunch on the same head). */
  settledAt?: Date | null
  relaunchRequestedAt?: Date | null
}

const gatingRunPatchSchema = z
  .object({
    updatedAt: validDate,
    state: z.enum(GATE_RUN_STATES).optional(),
    reason: z.string().min(1).max(1000).nullable().optional(),
    headSha: z.string().regex(SHA, '40 or 64 lowercase hex digits').optional(),
    gateContext: z.string().min(1).max(255).nullable().optional(),
    settledAt: validDate.nullable().optional(),
    relaunchRequestedAt: validDate.nullable().optional(),
  })
  .strict()

/** The stored shape (see mongo-gate-run-store.ts for the collection). Absent optionals are null. */
export interface GateRunDocument {
  _id: string
  repo: string
  pull: number
  headSha: string
  gateContext: string | null
  /** Absent on documents written before runs named their installation (read as null). */
  installation?: number | null
  state: GateRunState
  reason: string | null
  updatedAt: Date
  settledAt: Date | null
  relaunchRequestedAt: Date | null
}

function problems(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')
}

/** Validates a run; throws GateRunError `GATE_RUN_INVALID` naming each bad field and the operation. */
export function checkGatingRun(component: string, operation: string, input: unknown): GatingRun {
  const parsed = gatingRunSchema.safeParse(input)
  if (!parsed.success) {
    const id = (input as { id?: unknown } | null)?.id
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation, runId: typeof id === 'string' ? id.slice(0, 200) : undefined },
      `not a valid gating run — ${problems(parsed.error)}`,
    )
  }
  return { ...parsed.data, updatedAt: truncMs(parsed.data.updatedAt) }
}

/** Validates a patch; throws GateRunError `GATE_RUN_INVALID` naming each bad field. */
export function checkGatingRunPatch(component: string, runId: string, input: unknown): GatingRunPatch {
  const parsed = gatingRunPatchSchema.safeParse(input)
  if (!parsed.success) {
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation: 'update', runId },
      `not a valid gating-run patch — ${problems(parsed.error)}`,
    )
  }
  return parsed.data as GatingRunPatch
}

/** Checks a run id argument; throws GateRunError `GATE_RUN_INVALID`. */
export function checkRunId(component: string, operation: string, id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id)) {
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation },
      `a run id must be 1-200 characters of [A-Za-z0-9._:-], got ${JSON.stringify(id)}`,
    )
  }
  return id
}

/** Checks a `now` argument; throws GateRunError `GATE_RUN_INVALID`. */
export function checkInstant(component: string, operation: string, name: string, value: unknown): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new GateRunError(
      'GATE_RUN_INVALID',
      { component, operation },
      `${name} must be a valid Date, got ${String(value)}`,
    )
  }
  return truncMs(value)
}

function truncMs(d: Date): Date {
  return new Date(Math.trunc(d.getTime()))
}

/** The stored document of a validated run. */
export function toGateRunDocument(run: GatingRun): GateRunDocument {
  return {
    _id: run.id,
    repo: run.repo,
    pull: run.pull,
    headSha: run.headSha,
    gateContext: run.gateContext ?? null,
    installation: run.installation ?? null,
    state: run.state,
    reason: run.reason ?? null,
    updatedAt: run.updatedAt,
    settledAt: run.settledAt ?? null,
    relaunchRequestedAt: run.relaunchRequestedAt ?? null,
  }
}

/** The most characters of an invalid document's `_id` and problems kept: the sweep logs them. */
export const MAX_INVALID_TEXT_CHARS = 500

/** A stored document that failed validation: skipped by the sweep, counted and logged once. */
export interface InvalidGateRun {
  /**
   * The document's `_id` as text, as it may be shown (plain-text.ts): one line without control
   * characters, at most MAX_INVALID_TEXT_CHARS, a longer one cut and marked — a 100 KB `_id` once made
   * every sweep's log line 100 KB. Not a key to find the document by (a page's `next` keeps the whole id).
   */
  id: string
  /** What is wrong with it, bounded the same way. */
  problems: string
}

/** Reads a stored document: the run, or why it is not one. Never throws. */
export function parseGateRunDocument(doc: unknown): { run: GatingRun } | { invalid: InvalidGateRun } {
  const parsed = gateRunDocumentSchema.safeParse(doc)
  if (parsed.success) {
    const { _id, ...rest } = parsed.data
    return { run: { id: _id, ...rest } }
  }
  const id = (doc as { _id?: unknown } | null)?._id
  return {
    invalid: {
      id: plainLine(String(id), MAX_INVALID_TEXT_CHARS),
      problems: plainLine(problems(parsed.error), MAX_INVALID_TEXT_CHARS),
    },
  }
}
