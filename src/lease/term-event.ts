/**
 * Term events: what run() reports about a campaign, typed, so log lines and metrics subscribe to the same
 * facts instead of one parsing the other's words. `termEventLog` (term-event-log.ts) turns them into the
 * log lines; a subscriber that throws is ignored by run().
 */

interface TermEventBase {
  lease: string
  owner: string
  ttlMs: number
}

/** Every transition run() reports. `fence` is the term's, where a term exists. */
export type TermEvent =
  /** A term began; `previousHolder` when the store told who held the term before (also this owner). */
  | (TermEventBase & { type: 'elected'; fence: number; previousHolder?: string })
  /**
   * Another owner holds the lease: said once per term of that holder this candidate sees, with the
   * holder's fence and the expiry the store showed (the holder may renew it).
   */
  | (TermEventBase & { type: 'waiting'; holder: string; fence: number; expiresAt: Date })
  /** A renewal got no answer: the term is still served until its step-down instant unless one lands. */
  | (TermEventBase & { type: 'renew-failed'; fence: number; error: unknown; stepDownInMs: number })
  /** A renewal was refused: another owner has the lease, or this term is no longer the lease's latest. */
  | (TermEventBase & { type: 'lost'; fence: number })
  /** No renewal it can prove landed within ttl − ttl/6 of being sent: the term ended fail-closed. */
  | (TermEventBase & { type: 'stepped-down'; fence: number })
  /** The term's work threw; the campaign goes on. */
  | (TermEventBase & { type: 'work-failed'; fence: number; error: unknown })
  /** The term's lease was given up. */
  | (TermEventBase & { type: 'released'; fence: number })
  /** The release found another owner holding the lease. */
  | (TermEventBase & { type: 'release-lost'; fence: number; holder?: string })
  /** The release got no answer: a successor waits out the TTL. */
  | (TermEventBase & { type: 'release-failed'; fence: number; error: unknown })
  /**
   * The store stopped answering (once per outage). `holding`: whether a term is still being served, and
   * then `stepDownInMs`, the time left before it steps down unless a renewal lands.
   */
  | (TermEventBase & {
      type: 'store-failing'
      operation: 'acquire' | 'renew' | 'release'
      error: unknown
      holding: boolean
      stepDownInMs?: number
    })
  /**
   * One campaign attempt threw something no store call was allowed to (a bug, or a store answering outside
   * its contract): the campaign goes on with the next attempt after the retry pause.
   */
  | (TermEventBase & { type: 'attempt-failed'; error: unknown })
  /** The store answers again after an outage that lasted `outageMs` (wall clock). */
  | (TermEventBase & { type: 'store-recovered'; outageMs: number })

export type TermEventType = TermEvent['type']
