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

const COMPONENT = 'MemoryNetControlStore'

interface Stored {
  paused?: NetPause
  run?: ControlRequest
  'catch-up'?: ControlRequest
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
}

function controlOf(net: string, stored: Stored | undefined, now: Date): NetControl {
  const control: NetControl = { net }
  if (pauseInForce(stored?.paused, now)) control.paused = copyPause(stored.paused)
  if (stored?.run) control.run = copyRequest(stored.run)
  if (stored?.['catch-up']) control.catchUp = copyRequest(stored['catch-up'])
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
