/**
 * The stored shape of one run in `net_runs` (schema in mongo-run-ledger.ts) and its parser: every run
 * document MongoRunLedger reads goes through `parseRunDocument`, so a malformed one (a `slot` that is not a
 * date, a `startedAt` stored as text) is skipped and reported instead of breaking `history`, `/status` and
 * the page with a TypeError.
 */
import * as z from 'zod'
import { describeIssues } from '../store-call/bad-document.js'
import { RUN_OUTCOMES, type RunOutcome, type RunRecord } from './run-ledger.js'

/** The stored shape of one run. */
export interface RunDocument {
  _id: string
  net: string
  slot: Date
  owner: string
  fence: number
  startedAt: Date
  finishedAt: Date | null
  outcome: RunOutcome | null
  error: string | null
  requests: Record<string, number> | null
  /** Absent from documents written before attempts were kept: a finished one reads as 1. */
  attempts?: number | null
  /** Times a later term took the unfinished run over (`retake`); absent: never. */
  retakes?: number | null
  /** Written (true) for a manual run only. */
  manual?: boolean | null
  /** The installation the run acted as; absent (or null) for a global net and in older documents. */
  installation?: number | null
}

const count = z.number().int().nonnegative()
const runDocumentSchema = z.object({
  _id: z.string(),
  net: z.string(),
  slot: z.date(),
  owner: z.string(),
  fence: count,
  startedAt: z.date(),
  // Absent optionals are stored as null; a document written by hand may leave them out.
  finishedAt: z.date().nullish(),
  outcome: z.enum(RUN_OUTCOMES).nullish(),
  error: z.string().nullish(),
  requests: z.record(z.string(), count).nullish(),
  attempts: count.nullish(),
  retakes: count.nullish(),
  manual: z.boolean().nullish(),
  installation: z.number().int().positive().nullish(),
})

/** The run a stored document holds, or what is wrong with it. */
export type ParsedRun = { ok: true; record: RunRecord } | { ok: false; problem: string }

/** Parses one stored run document; never throws. */
export function parseRunDocument(doc: object): ParsedRun {
  const parsed = runDocumentSchema.safeParse(doc)
  if (!parsed.success) return { ok: false, problem: describeIssues(parsed.error.issues) }
  const d = parsed.data
  const record: RunRecord = {
    // An account of a slot is stored under `<run id>#unrun` (mongo-run-ledger.ts); it is that slot's record.
    id: d._id.replace(/#unrun$/, ''),
    net: d.net,
    slot: d.slot,
    owner: d.owner,
    fence: d.fence,
    startedAt: d.startedAt,
  }
  if (d.finishedAt) record.finishedAt = d.finishedAt
  if (d.outcome) {
    record.outcome = d.outcome
    record.attempts = d.attempts ?? 1
  }
  if (d.error) record.error = d.error
  if (d.requests) record.requests = d.requests
  if (d.retakes) record.retakes = d.retakes
  if (d.manual) record.manual = true
  if (d.installation) record.installation = d.installation
  return { ok: true, record }
}
