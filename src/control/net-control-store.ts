/**
 * The net control store contract: each net's operator controls — paused or not (until when, why, by
 * whom, since when), and the requests an operator left for whichever replica holds the net's lease (run
 * now; run the paused slots on resume) — kept in the store beside the lease, so every replica reads the
 * same answer and the CLI, the HTTP API and the library all write the same place.
 *
 * What it is: one small record per net, written by operators and read by the holder (once per tick, and
 * at a short interval while a pass runs or a request may be pending) and by every status view. A pause
 * may expire by itself: a pause whose `until` is at or before `now` reads as not paused, with no write.
 * A request is taken by the holder with a compare-and-clear on its id, after the holder has claimed the
 * request's slot in the run ledger — the ledger, not this store, decides that a request runs once.
 *
 * What it is not: a lock or a schedule. It never stops a pass by itself (the holder reads it and acts),
 * and it keeps no history: what a pause did is in the run ledger (slots recorded `paused`).
 *
 * Both twins (MemoryNetControlStore, MongoNetControlStore) give identical answers to identical calls; one
 * conformance suite runs them both. Every call takes `now` (the caller's clock). A rejection means the
 * answer did not arrive (a NetControlError); expected outcomes are return values.
 */
import type { StoreCallOptions } from '../store-call/store-call.js'
import { plainLine } from '../plain-text.js'
import { MAX_TEXT_CHARS } from './control-text-limit.js'
import type {
  BackfillAdvance,
  BackfillCancel,
  BackfillInput,
  BackfillRequestResult,
  BackfillStatus,
} from './backfill-request.js'

/** A pause as stored: in force from `at` until `until` (or until resumed). */
export interface NetPause {
  /** When it was paused. */
  at: Date
  /** When the pause ends by itself; absent: until resumed. */
  until?: Date
  /** Why, for the operator (shown in status, recorded with each slot it let go). */
  reason?: string
  /** Who paused it (a name the operator gives; not authenticated). */
  by?: string
  /** Whether a pass in flight when the pause was made is to be aborted (`pause --abort`). */
  abort: boolean
}

/** What a caller asks for when pausing. */
export interface PauseRequest {
  until?: Date
  reason?: string
  by?: string
  abort?: boolean
}

/**
 * A request left for the holder. `run`: run the net once now, as a manual slot (the request's `at` is the
 * manual slot's instant); `catch-up`: run the slots recorded `paused` (oldest first, bounded).
 */
export interface ControlRequest {
  /** Unique per request: what `take` compares. */
  id: string
  /** When it was asked for. */
  at: Date
  reason?: string
  by?: string
}

export type ControlRequestKind = 'run' | 'catch-up'

/** What a caller asks for when requesting a run or a catch-up. */
export interface ControlRequestInput {
  reason?: string
  by?: string
}

/** A net's control state as read at `now`. */
export interface NetControl {
  net: string
  /** Present while the net is paused at `now` (an expired pause is absent). */
  paused?: NetPause
  /** A pending run-now request. */
  run?: ControlRequest
  /** A pending catch-up request (left by `resume --catch-up`). */
  catchUp?: ControlRequest
  /** The newest backfill request, running or ended (its progress), without its slot list (backfill-request.ts). */
  backfill?: BackfillStatus
}

/** What `request` came to: the pending request, and whether this call made it (one pending per kind). */
export interface RequestResult {
  created: boolean
  request: ControlRequest
}

/** The most nets one `getMany` reads: a replica's poll reads its nets in reads of at most this many. */
export const MAX_NETS_PER_READ = 1_000

export interface NetControlStore {
  /**
   * The net's control state at `now` (nothing stored reads as `{ net }`). A stored record the store
   * cannot read is reported by the twin and answered as `{ net }` (not paused, nothing pending).
   */
  get(net: string, now: Date, options?: StoreCallOptions): Promise<NetControl>
  /**
   * The control state of each of `nets` at `now`, as `get` answers it, in the order given: one store call
   * for a replica's nets (term/control-poll.ts). At most MAX_NETS_PER_READ nets; a blank name or more
   * nets rejects with NET_CONTROL_INVALID.
   */
  getMany(nets: readonly string[], now: Date, options?: StoreCallOptions): Promise<NetControl[]>
  /** Every net with a stored record, as `get` would answer it, ordered by net name. */
  list(now: Date, options?: StoreCallOptions): Promise<NetControl[]>
  /**
   * Pauses the net from `now` (replacing a pause in force: the newest word wins); resolves the pause
   * stored. Rejects with NET_CONTROL_INVALID when `until` is not after `now`.
   */
  pause(net: string, request: PauseRequest, now: Date, options?: StoreCallOptions): Promise<NetPause>
  /**
   * Lifts the net's pause; with `catchUp`, also leaves a catch-up request (only when a pause was lifted).
   * Resolves the pause lifted, or undefined when the net was not paused at `now` (then nothing changes).
   */
  resume(
    net: string,
    input: ResumeInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<NetPause | undefined>
  /** Leaves a request of `kind` for the holder; while one is pending, that one is answered (`created: false`). */
  request(
    net: string,
    kind: ControlRequestKind,
    input: ControlRequestInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<RequestResult>
  /** Clears the pending request of `kind` when its id is `id`; resolves whether this call cleared it. */
  take(net: string, kind: ControlRequestKind, id: string, options?: StoreCallOptions): Promise<boolean>
  /**
   * Leaves a backfill request for the holder (backfill-request.ts), replacing one that ended (done or
   * cancelled); while one is pending, that one is answered (`created: false`) and nothing changes. Rejects
   * with NET_CONTROL_INVALID for a range or slot list that is not 1…MAX_BACKFILL_REQUEST_SLOTS instants,
   * oldest first, within from…to.
   */
  requestBackfill(
    net: string,
    input: BackfillInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillRequestResult>
  /** The slot list of backfill request `id`; undefined when the net's request is no longer that one. */
  backfillSlots(net: string, id: string, options?: StoreCallOptions): Promise<Date[] | undefined>
  /**
   * Moves request `advance.id`'s cursor past the slot at `advance.index`, counting its end, when the cursor
   * is at that index (so a word repeated, or a deposed holder's late one, moves nothing). Resolves the
   * request as it stands after the call (moved or not), or undefined when the net's request is no longer
   * that one. A cancelled request still counts the slot that was in flight.
   */
  advanceBackfill(
    net: string,
    advance: BackfillAdvance,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined>
  /**
   * Cancels the pending backfill request (with `cancel.id`, only that one): no further slot starts. Resolves
   * the request cancelled, or undefined when none was pending (then nothing changes).
   */
  cancelBackfill(
    net: string,
    cancel: Omit<BackfillCancel, 'at'> & { id?: string },
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined>
}

export interface ResumeInput extends ControlRequestInput {
  /** Leave a catch-up request: the holder runs the slots recorded `paused`. */
  catchUp?: boolean
}

/** Whether `pause` is in force at `now`. */
export function pauseInForce(pause: NetPause | undefined, now: Date): pause is NetPause {
  return pause !== undefined && (pause.until === undefined || pause.until.getTime() > now.getTime())
}

/**
 * How a pause reads in a log line, a ledger record or `leasecron status`: `paused by ann until … : why`.
 * Its texts as plain lines (plain-text.ts) whatever store handed them over: a store of your own need not
 * have read them through this module's checks.
 */
export function describePause(pause: NetPause): string {
  const by = pause.by ? ` by ${plainLine(pause.by, MAX_TEXT_CHARS)}` : ''
  const until = pause.until ? ` until ${pause.until.toISOString()}` : ''
  const why = pause.reason ? `: ${plainLine(pause.reason, MAX_TEXT_CHARS)}` : ''
  return `paused${by}${until}${why}`
}
