/**
 * Term events: what run() reports about a campaign, typed, so log lines and metrics subscribe to the same
 * facts instead of one parsing the other's words.
 */

interface TermEventBase {
  lease: string
  owner: string
  ttlMs: number
}

/** Every transition run() reports. `fence` is the term's, where a term exists. */
export type TermEvent =
  /** A term began; `previousHolder` when the store told who held it before (if known). */
  | (TermEventBase & { type: 'elected'; fence: number; previousHolder?: string })
  /** A renewal was refused: another owner has the lease. */
  | (TermEventBase & { type: 'lost'; fence: number })
  /** No renewal it can prove landed within ttl − ttl/6 of being sent: the term ended fail-closed. */
  | (TermEventBase & { type: 'stepped-down'; fence: number })
  /** The term's lease was given up. */
  | (TermEventBase & { type: 'released'; fence: number })
  /** The release found another owner holding the lease. */
  | (TermEventBase & { type: 'release-lost'; fence: number; holder?: string })
  /** The release got no answer: a successor waits out the TTL. */
  | (TermEventBase & { type: 'release-failed'; fence: number; error: unknown })
  /** The store stopped answering (once per outage). `holding`: whether a term is still being served. */
  | (TermEventBase & { type: 'store-failing'; operation: 'acquire' | 'renew' | 'release'; error: unknown; holding: boolean; stepDownInMs?: number })
  /** The store answers again after an outage. */
  | (TermEventBase & { type: 'store-recovered'; outageMs: number })

export type TermEventType = TermEvent['type']
