/**
 * The stored shape of one lease in MongoDB, `{_id: name, owner, token, fence, expiresAt, renewedAt}`,
 * and its parser: every lease document MongoStore reads goes through `parseLeaseDocument`, so a malformed
 * one (an expiry stored as a string, a fence missing) becomes a LeaseRecord marked `corrupt` instead of a
 * TypeError somewhere downstream.
 *
 * What a malformed lease means (docs/semantics.md, "Malformed documents"):
 * - An expiry that is missing, not a Date or not a valid instant cannot prove the term is held, so the
 *   lease is free: `expiresAt` is undefined here and acquire takes it over, writing a valid expiry.
 * - A fence that is not a whole number ≥ 0 cannot be given a greater successor, so acquire elects nobody
 *   on it (answers `false`) until someone fixes the document; the next attempt after the fix elects.
 */
import * as z from 'zod'
import { describeIssues } from '../store-call/bad-document.js'
import type { LeaseRecord } from './store.js'

/** The stored shape of one lease. */
export interface LeaseDocument {
  _id: string
  /** The latest term's owner; kept after release so the next grant can name its previous holder. */
  owner: string
  /** The latest term's token; `null` once released. */
  token: string | null
  fence: number
  /** The epoch once released. */
  expiresAt: Date
  renewedAt: Date
  /** Notices left for the holder (LeaseStore.notify); absent on a lease never noticed. */
  notice?: number
}

const fields = {
  _id: z.string(),
  owner: z.string(),
  token: z.string().nullable(),
  fence: z.number().int().nonnegative(),
  expiresAt: z.date(),
  renewedAt: z.date(),
}
const leaseDocumentSchema = z.object(fields)

/** A lease document as read: its record, and what is wrong with it when it is malformed. */
export interface ParsedLease {
  record: LeaseRecord
  /** Undefined for a well-formed document. */
  problem: string | undefined
  /** The stored fence when it is a whole number ≥ 0. */
  fence: number | undefined
  /** The stored expiry in ms when it is a valid Date (also for a released lease: the epoch). */
  expiresAtMs: number | undefined
  /** The stored owner when it is a string. */
  owner: string | undefined
}

/** Parses one stored lease document; never throws. */
export function parseLeaseDocument(stored: object): ParsedLease {
  const parsed = leaseDocumentSchema.safeParse(stored)
  if (parsed.success) {
    const d = parsed.data
    return {
      record: leaseRecord(d),
      problem: undefined,
      fence: d.fence,
      expiresAtMs: d.expiresAt.getTime(),
      owner: d.owner,
    }
  }
  // Each field on its own: a bad expiry must not hide a good fence, and the reverse.
  const doc: Record<string, unknown> = Object.fromEntries(Object.entries(stored))
  const field = <K extends keyof typeof fields>(key: K) => {
    const one = fields[key].safeParse(doc[key])
    return one.success ? (one.data as z.infer<(typeof fields)[K]>) : undefined
  }
  const owner = field('owner')
  const fence = field('fence')
  const expiresAt = field('expiresAt')
  const free = doc.token === null
  const problem = describeIssues(parsed.error.issues)
  return {
    record: {
      name: typeof doc._id === 'string' ? doc._id : String(doc._id),
      owner: free ? undefined : owner,
      fence: fence ?? 0,
      expiresAt: free ? undefined : expiresAt,
      renewedAt: field('renewedAt') ?? new Date(0),
      corrupt: problem,
    },
    problem,
    fence,
    expiresAtMs: expiresAt?.getTime(),
    owner,
  }
}

function leaseRecord(d: LeaseDocument): LeaseRecord {
  const free = d.token === null
  return {
    name: d._id,
    owner: free ? undefined : d.owner,
    fence: d.fence,
    expiresAt: free ? undefined : d.expiresAt,
    renewedAt: d.renewedAt,
  }
}
