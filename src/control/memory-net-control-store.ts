/**
 * MemoryNetControlStore: the net control store in this process's memory, for a worker without MONGO_URI
 * (its HTTP API and the library then control that one process) and for tests. Another process shares
 * nothing: a CLI `pause` against a worker without MONGO_URI cannot reach it. Records are kept as copies.
 */
import {
  checkId,
  checkInstant,
  checkKind,
  checkNet,
  checkNets,
  checkNotAborted,
  checkPause,
  newRequest,
  requestOf,
} from './net-control-checks.js'
import {
  type ControlRequest,
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
import type { StoreCallOptions } from '../store-call/store-call.js'
import {
  backfillPending,
  type BackfillAdvance,
  type BackfillCancel,
  type BackfillInput,
  type BackfillRequestResult,
  type BackfillStatus,
} from './backfill-request.js'
import { backfillStatusOf, checkAdvance, newBackfill, type StoredBackfill } from './backfill-checks.js'

const COMPONENT = 'MemoryNetControlStore'

interface Stored {
  paused?: NetPause
  run?: ControlRequest
  'catch-up'?: ControlRequest
  backfill?: StoredBackfill
}

/** A NetControlStore held in memory; see the NetControlStore contract. */
export class MemoryNetControlStore implements NetControlStore {
  readonly #nets = new Map<string, Stored>()

  async get(net: string, now: Date, options?: StoreCallOptions): Promise<NetControl> {
    const context = checkNet(COMPONENT, 'get', net)
    const at = checkInstant(context, 'now', now)
    checkNotAborted(context, options?.signal)
    return controlOf(net, this.#nets.get(net), at)
  }

  async getMany(nets: readonly string[], now: Date, options?: StoreCallOptions): Promise<NetControl[]> {
    const context = checkNets(COMPONENT, nets)
    const at = checkInstant(context, 'now', now)
    checkNotAborted(context, options?.signal)
    return nets.map((net) => controlOf(net, this.#nets.get(net), at))
  }

  async list(now: Date, options?: StoreCallOptions): Promise<NetControl[]> {
    const context = { component: COMPONENT, operation: 'list' }
    const at = checkInstant(context, 'now', now)
    checkNotAborted(context, options?.signal)
    return [...this.#nets.keys()].sort().map((net) => controlOf(net, this.#nets.get(net), at))
  }

  async pause(net: string, request: PauseRequest, now: Date, options?: StoreCallOptions): Promise<NetPause> {
    const context = checkNet(COMPONENT, 'pause', net)
    const pause = checkPause(context, request, now)
    checkNotAborted(context, options?.signal)
    this.#nets.set(net, { ...this.#nets.get(net), paused: pause })
    return copyPause(pause)
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
    checkNotAborted(context, options?.signal)
    const stored = this.#nets.get(net)
    if (!pauseInForce(stored?.paused, at)) return undefined
    const { paused, ...rest } = stored
    this.#nets.set(net, catchUp ? { ...rest, 'catch-up': catchUp } : rest)
    return copyPause(paused)
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
    checkNotAborted(context, options?.signal)
    const stored = this.#nets.get(net) ?? {}
    const pending = stored[kind]
    if (pending) return { created: false, request: copyRequest(pending) }
    this.#nets.set(net, { ...stored, [kind]: request })
    return { created: true, request: copyRequest(request) }
  }

  async take(
    net: string,
    kind: ControlRequestKind,
    id: string,
    options?: StoreCallOptions,
  ): Promise<boolean> {
    const context = checkNet(COMPONENT, 'take', net)
    const which = checkKind(context, kind)
    const wanted = checkId(context, id)
    checkNotAborted(context, options?.signal)
    const stored = this.#nets.get(net)
    if (stored?.[which]?.id !== wanted) return false
    const { [which]: _taken, ...rest } = stored
    this.#nets.set(net, rest)
    return true
  }

  async requestBackfill(
    net: string,
    input: BackfillInput,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillRequestResult> {
    const context = checkNet(COMPONENT, 'requestBackfill', net)
    const backfill = newBackfill(context, input, now)
    checkNotAborted(context, options?.signal)
    const stored = this.#nets.get(net) ?? {}
    if (stored.backfill && backfillPending(stored.backfill))
      return { created: false, backfill: backfillStatusOf(stored.backfill) }
    this.#nets.set(net, { ...stored, backfill })
    return { created: true, backfill: backfillStatusOf(backfill) }
  }

  async backfillSlots(net: string, id: string, options?: StoreCallOptions): Promise<Date[] | undefined> {
    const context = checkNet(COMPONENT, 'backfillSlots', net)
    const wanted = checkId(context, id)
    checkNotAborted(context, options?.signal)
    const backfill = this.#nets.get(net)?.backfill
    return backfill?.id === wanted ? backfill.slots.map((slot) => new Date(slot)) : undefined
  }

  async advanceBackfill(
    net: string,
    advance: BackfillAdvance,
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined> {
    const context = checkNet(COMPONENT, 'advanceBackfill', net)
    const word = checkAdvance(context, advance)
    const at = checkInstant(context, 'now', now)
    checkNotAborted(context, options?.signal)
    const backfill = this.#nets.get(net)?.backfill
    if (backfill?.id !== word.id) return undefined
    if (backfill.done === word.index && backfill.done < backfill.total) {
      backfill.done++
      backfill.counts[word.end]++
      backfill.owner = word.owner
      backfill.updatedAt = at
    }
    return backfillStatusOf(backfill)
  }

  async cancelBackfill(
    net: string,
    cancel: Omit<BackfillCancel, 'at'> & { id?: string },
    now: Date,
    options?: StoreCallOptions,
  ): Promise<BackfillStatus | undefined> {
    const context = checkNet(COMPONENT, 'cancelBackfill', net)
    const wanted = cancel?.id === undefined ? undefined : checkId(context, cancel.id)
    const cancelled = requestOf(context, cancel ?? {}, now)
    checkNotAborted(context, options?.signal)
    const backfill = this.#nets.get(net)?.backfill
    if (!backfill || !backfillPending(backfill) || (wanted !== undefined && backfill.id !== wanted))
      return undefined
    const { id: _id, ...record } = cancelled
    backfill.cancelled = record
    return backfillStatusOf(backfill)
  }
}

function controlOf(net: string, stored: Stored | undefined, now: Date): NetControl {
  const control: NetControl = { net }
  if (pauseInForce(stored?.paused, now)) control.paused = copyPause(stored.paused)
  if (stored?.run) control.run = copyRequest(stored.run)
  if (stored?.['catch-up']) control.catchUp = copyRequest(stored['catch-up'])
  if (stored?.backfill) control.backfill = backfillStatusOf(stored.backfill)
  return control
}

function copyPause(pause: NetPause): NetPause {
  const out: NetPause = { ...pause, at: new Date(pause.at) }
  if (pause.until) out.until = new Date(pause.until)
  return out
}

function copyRequest(request: ControlRequest): ControlRequest {
  return { ...request, at: new Date(request.at) }
}
