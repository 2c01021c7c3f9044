/**
 * MongoNetControlStore: the net control store in the MongoDB collection `net_controls`, one document per
 * net, so every replica (and the CLI) reads and writes the same controls.
 *
 * Documented schema (absent optionals stored as null):
 *
 *   _id      string   the net's name
 *   paused   object?  { at: date, until: date?, reason: string?, by: string?, abort: bool } — while set
 *                     and `until` is absent or after now, the net is paused
 *   run      object?  { id: string (1–64 printable ASCII), at: date, reason: string?, by: string? } — a
 *                     pending run-now request; one with another id is dropped when read, replaced by the next
 *   catchUp  object?  the same shape — a pending catch-up request (left by `resume --catch-up`)
 *   backfill object?  the newest backfill request: { id, at, reason?, by?, from: date, to: date,
 *                     total, done (the cursor), left (total − done), counts: { ok, failed, taken, aborted },
 *                     owner?, updatedAt?: date, cancelled?: { at: date, by?, reason? } } — pending while
 *                     left > 0 and not cancelled
 *   backfillSlots object?  { id: the request's id, slots: [date] (oldest first) } — its slot list
 *
 * `pause` is one upsert (the newest word wins). `resume` is one findOneAndUpdate filtered on a pause in
 * force at `now`, so it answers the pause it lifted. `request` is one upsert filtered on no pending
 * request of its kind (or one whose id no reader serves): a duplicate-key refusal means one is pending,
 * and that one is read and answered.
 * `take` is one update filtered on the request's id. On FerretDB (read-then-write updates) two takers may
 * both see `true`: the run ledger's claim of the request's slot, not `take`, decides that a request runs
 * once. `requestBackfill` is the same upsert as `request` (filtered on no pending backfill);
 * `advanceBackfill` one update filtered on the request's id and its cursor, then a read; `cancelBackfill`
 * one findOneAndUpdate filtered on a pending request. On FerretDB two advances of one index at the same
 * instant may both land (read-then-write): the holder therefore advances only while its term is live
 * (term/backfill-job.ts), and terms of a lease never overlap. Reads leave `backfill.slots` out (the holder's tick
 * reads the document); `backfillSlots` reads them alone.
 *
 * Every document read is parsed (net-control-document.ts): a malformed one reads as no controls and is
 * reported once through `onBadDocument`, never thrown. Every call goes through store-call.ts (bounded);
 * writes use write concern `majority`.
 */
import type { Collection, Db, Filter } from 'mongodb'
import { BadDocumentReporter, documentId, type OnBadDocument } from '../store-call/bad-document.js'
import { isDuplicateKeyError } from '../store-call/duplicate-key.js'
import { type CallBounds, StoreCollection, type StoreCallOptions } from '../store-call/store-call.js'
import {
  BAD_REQUEST_ID_PATTERN,
  checkId,
  checkInstant,
  checkKind,
  checkNet,
  checkNets,
  checkPause,
  newRequest,
  requestOf,
} from './net-control-checks.js'
import {
  type NetControlDocument,
  parseNetControlDocument,
  pauseDocument,
  requestDocument,
} from './net-control-document.js'
import { NetControlError, type NetControlErrorContext } from './net-control-error.js'
import { backfillDocument } from './backfill-document.js'
import type {
  BackfillAdvance,
  BackfillCancel,
  BackfillInput,
  BackfillRequestResult,
  BackfillStatus,
} from './backfill-request.js'
import { backfillStatusOf, checkAdvance, newBackfill } from './backfill-checks.js'
import {
  type ControlRequestInput,
  type ControlRequestKind,
  type NetControl,
  type NetControlStore,
  type NetPause,
  type PauseRequest,
  pauseInForce,
  type RequestResult,
  type ResumeInput,
} from './net-control-store.js'

const COMPONENT = 'MongoNetControlStore'
export const NET_CONTROLS_COLLECTION = 'net_controls'
/** The most nets `list` reads: far more than any worker runs, so a runaway collection cannot flood a view. */
const LIST_LIMIT = 1_000

const FIELD: Record<ControlRequestKind, 'run' | 'catchUp'> = { run: 'run', 'catch-up': 'catchUp' }

export interface MongoNetControlStoreOptions {
  /** Collection name; `net_controls` by default. */
  collection?: string
  /** Called once per distinct malformed control document read (which then reads as no controls). */
  onBadDocument?: OnBadDocument
  /** The longest a call may take on the server, in ms; 5000 by default. */
  callTimeoutMs?: number
}

/**
 * Where a new request of `field` may be stored: none pending, or one no reader serves (an id written by
 * hand that the parser drops, net-control-document.ts) — else that one would block every new request.
 */
function freeOrUnusable(field: string): Filter<NetControlDocument> {
  const id = `${field}.id`
  return {
    $or: [
      { [field]: null },
      { [id]: { $not: { $type: 'string' } } },
      { [id]: { $regex: BAD_REQUEST_ID_PATTERN } },
    ],
  } as Filter<NetControlDocument>
}

/** The fields a backfill request cannot be read without (backfill-document.ts), and their types. */
const BACKFILL_REQUIRED: ReadonlyArray<[string, string]> = [
  ...(['at', 'from', 'to'] as const).map((f): [string, string] => [f, 'date']),
  ...['total', 'done', 'left', 'counts.ok', 'counts.failed', 'counts.taken', 'counts.aborted'].map(
    (f): [string, string] => [f, 'number'],
  ),
]

/**
 * Where a new backfill request may be stored: none, one that ended (no slot left, or cancelled), or one no
 * reader serves (a required field missing or mistyped, an id the parser drops) — else a bad one would
 * block every backfill of the net.
 */
function backfillFree(): Filter<NetControlDocument> {
  return {
    $or: [
      { 'backfill.left': { $not: { $gt: 0 } } },
      { 'backfill.cancelled': { $ne: null } },
      { 'backfill.id': { $not: { $type: 'string' } } },
      { 'backfill.id': { $regex: BAD_REQUEST_ID_PATTERN } },
      ...BACKFILL_REQUIRED.map(([field, type]) => ({ [`backfill.${field}`]: { $not: { $type: type } } })),
    ],
  } as Filter<NetControlDocument>
}

/**
 * Every read but `backfillSlots` leaves the slot list out. It is a field of its own, not inside `backfill`:
 * FerretDB 1.24 answers a projection that leaves out a nested field with no document at all.
 */
const WITHOUT_SLOTS = { projection: { backfillSlots: 0 } }

/** A NetControlStore backed by MongoDB (or a wire-compatible server); see the NetControlStore contract. */
export class MongoNetControlStore implements NetControlStore {
  readonly #controls: StoreCollection<NetControlDocument>
  readonly #bad: BadDocumentReporter

  constructor(db: Db, options: MongoNetControlStoreOptions = {}) {
    const collection = options.collection ?? NET_CONTROLS_COLLECTION
    this.#controls = new StoreCollection<NetControlDocument>(db, collection, {
      component: COMPONENT,
      majority: true,
      ...(options.callTimeoutMs === undefined ? {} : { callTimeoutMs: options.callTimeoutMs }),
    })
    this.#bad = new BadDocumentReporter(collection, options.onBadDocument)
  }

  async get(net: string, now: Date, options?: StoreCallOptions): Promise<NetControl> {
    const context = checkNet(COMPONENT, 'get', net)
    const at = checkInstant(context, 'now', now)
    const doc = await this.#call(context, options, (controls, bounds) =>
      controls.findOne({ _id: net }, { ...WITHOUT_SLOTS, ...bounds.read }),
    )
    return doc === null ? { net } : this.#control(doc, net, at)
  }

  async getMany(nets: readonly string[], now: Date, options?: StoreCallOptions): Promise<NetControl[]> {
    const context = checkNets(COMPONENT, nets)
    const at = checkInstant(context, 'now', now)
    if (nets.length === 0) return []
    const docs = await this.#call(context, options, (controls, bounds) =>
      controls.find({ _id: { $in: [...nets] } }, { ...WITHOUT_SLOTS, ...bounds.find }).toArray(),
    )
    const byNet = new Map(docs.map((doc) => [documentId(doc), doc]))
    return nets.map((net) => {
      const doc = byNet.get(net)
      return doc === undefined ? { net } : this.#control(doc, net, at)
    })
  }

  async list(now: Date, options?: StoreCallOptions): Promise<NetControl[]> {
    const context = { component: COMPONENT, operation: 'list' }
    const at = checkInstant(context, 'now', now)
    const docs = await this.#call(context, options, (controls, bounds) =>
      controls
        .find({}, { ...WITHOUT_SLOTS, ...bounds.find })
        .sort({ _id: 1 })
        .limit(LIST_LIMIT)
        .toArray(),
    )
    return docs.map((doc) => this.#control(doc, documentId(doc), at))
  }

  async pause(net: string, request: PauseRequest, now: Date, options?: StoreCallOptions): Promise<NetPause> {
    const context = checkNet(COMPONENT, 'pause', net)
    const pause = checkPause(context, request, now)
    await this.#call(context, options, (controls, bounds) =>
      controls.updateOne(
        { _id: net },
        { $set: { paused: pauseDocument(pause) } },
        { upsert: true, ...bounds.write },
      ),
    )
    return pause
  }

  async resume(
    net: string,
    input: ResumeInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<NetPause | undefined> {
    const context = checkNet(COMPONENT, 'resume', net)
    const catchUp = input?.catchUp ? newRequest(context, 'catch-up', input, now) : undefined
    const at = checkInstant(context, 'now', now)
    const inForce = {
      _id: net,
      'paused.at': { $type: 'date' },
      $or: [{ 'paused.until': null }, { 'paused.until': { $gt: at } }],
    }
    const set = catchUp ? { paused: null, catchUp: requestDocument(catchUp) } : { paused: null }
    const before = await this.#call(context, options, (controls, bounds) =>
      controls.findOneAndUpdate(inForce, { $set: set }, { returnDocument: 'before', ...bounds.write }),
    )
    if (before === null) return undefined
    const parsed = parseNetControlDocument(before)
    // A pause the filter matched but the parser refuses (a hand-written text field) was still lifted.
    return parsed.ok && pauseInForce(parsed.paused, at) ? parsed.paused : { at, abort: false }
  }

  async request(
    net: string,
    kind: ControlRequestKind,
    input: ControlRequestInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<RequestResult> {
    const context = checkNet(COMPONENT, 'request', net)
    const request = newRequest(context, kind, input, now)
    const field = FIELD[kind]
    const created = await this.#call(context, options, async (controls, bounds) => {
      try {
        await controls.updateOne(
          { _id: net, ...freeOrUnusable(field) },
          { $set: { [field]: requestDocument(request) } },
          { upsert: true, ...bounds.write },
        )
        return true
      } catch (error) {
        if (isDuplicateKeyError(error)) return false
        throw error
      }
    })
    if (created) return { created, request }
    const pending = (await this.get(net, now, options))[field]
    // Taken between the refusal and the read: the holder has it; answer ours, not created.
    return { created: false, request: pending ?? request }
  }

  async take(
    net: string,
    kind: ControlRequestKind,
    id: string,
    options?: StoreCallOptions,
  ): Promise<boolean> {
    const context = checkNet(COMPONENT, 'take', net)
    const field = FIELD[checkKind(context, kind)]
    const wanted = checkId(context, id)
    const result = await this.#call(context, options, (controls, bounds) =>
      controls.updateOne({ _id: net, [`${field}.id`]: wanted }, { $set: { [field]: null } }, bounds.write),
    )
    return result.modifiedCount === 1
  }

  async requestBackfill(
    net: string,
    input: BackfillInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillRequestResult> {
    const context = checkNet(COMPONENT, 'requestBackfill', net)
    const backfill = newBackfill(context, input, now)
    const created = await this.#call(context, options, async (controls, bounds) => {
      try {
        await controls.updateOne(
          { _id: net, ...backfillFree() },
          {
            $set: {
              backfill: backfillDocument(backfill),
              backfillSlots: { id: backfill.id, slots: backfill.slots },
            },
          },
          { upsert: true, ...bounds.write },
        )
        return true
      } catch (error) {
        if (isDuplicateKeyError(error)) return false
        throw error
      }
    })
    if (created) return { created, backfill: backfillStatusOf(backfill) }
    const pending = (await this.get(net, now, options)).backfill
    // Ended between the refusal and the read: answer ours, not created (the caller may ask again).
    return { created: false, backfill: pending ?? backfillStatusOf(backfill) }
  }

  async backfillSlots(net: string, id: string, options?: StoreCallOptions): Promise<Date[] | undefined> {
    const context = checkNet(COMPONENT, 'backfillSlots', net)
    const wanted = checkId(context, id)
    const doc = await this.#call(context, options, (controls, bounds) =>
      controls.findOne(
        { _id: net, 'backfillSlots.id': wanted },
        { projection: { backfillSlots: 1 }, ...bounds.read },
      ),
    )
    const slots: unknown = doc?.backfillSlots?.slots
    if (doc === null) return undefined
    if (Array.isArray(slots) && slots.every((slot) => slot instanceof Date)) return slots
    this.#bad.report(net, 'backfill.slots: expected a list of dates')
    return undefined
  }

  async advanceBackfill(
    net: string,
    advance: BackfillAdvance,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined> {
    const context = checkNet(COMPONENT, 'advanceBackfill', net)
    const { id, index, end, owner } = checkAdvance(context, advance)
    const at = checkInstant(context, 'now', now)
    await this.#call(context, options, (controls, bounds) =>
      controls.updateOne(
        { _id: net, 'backfill.id': id, 'backfill.done': index, 'backfill.left': { $gt: 0 } },
        {
          $inc: { 'backfill.done': 1, 'backfill.left': -1, [`backfill.counts.${end}`]: 1 },
          $set: { 'backfill.owner': owner, 'backfill.updatedAt': at },
        },
        bounds.write,
      ),
    )
    const backfill = (await this.get(net, at, options)).backfill
    return backfill?.id === id ? backfill : undefined
  }

  async cancelBackfill(
    net: string,
    cancel: Omit<BackfillCancel, 'at'> & { id?: string },
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined> {
    const context = checkNet(COMPONENT, 'cancelBackfill', net)
    const wanted = cancel?.id === undefined ? {} : { 'backfill.id': checkId(context, cancel.id) }
    const { at, reason, by } = requestOf(context, cancel ?? {}, now)
    const pending = { _id: net, 'backfill.left': { $gt: 0 }, 'backfill.cancelled': null, ...wanted }
    const cancelled = { at, reason: reason ?? null, by: by ?? null }
    const after = await this.#call(context, options, (controls, bounds) =>
      controls.findOneAndUpdate(
        pending,
        { $set: { 'backfill.cancelled': cancelled } },
        // No projection: FerretDB 1.24 implements none on findAndModify (the slots come along, once).
        { returnDocument: 'after', ...bounds.write },
      ),
    )
    return after === null ? undefined : this.#control(after, net, at).backfill
  }

  /** A stored document as the control state at `now`; a malformed one (reported once) reads as none. */
  #control(doc: NetControlDocument, net: string, now: Date): NetControl {
    const parsed = parseNetControlDocument(doc)
    if (!parsed.ok) {
      this.#bad.report(documentId(doc), parsed.problem)
      return { net }
    }
    // A request dropped for its id is reported like a bad document; the rest of the document is served.
    if (parsed.dropped) this.#bad.report(parsed.net, parsed.dropped)
    else this.#bad.clear(parsed.net)
    const control: NetControl = { net: parsed.net }
    if (pauseInForce(parsed.paused, now)) control.paused = parsed.paused
    if (parsed.run) control.run = parsed.run
    if (parsed.catchUp) control.catchUp = parsed.catchUp
    if (parsed.backfill) control.backfill = parsed.backfill
    return control
  }

  #call<T>(
    context: NetControlErrorContext,
    options: StoreCallOptions | undefined,
    op: (controls: Collection<NetControlDocument>, bounds: CallBounds) => Promise<T>,
  ): Promise<T> {
    const error = (kind: 'failed' | 'aborted', detail: string, cause: unknown) =>
      new NetControlError(kind === 'failed' ? 'NET_CONTROL_FAILED' : 'NET_CONTROL_ABORTED', context, detail, {
        cause,
      })
    return this.#controls.call({ signal: options?.signal, error }, op)
  }
}
