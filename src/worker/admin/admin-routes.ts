/**
 * The HTTP admin API on the worker's port: `POST /nets/<net>/pause`, `/resume`, `/run`, `/backfill`
 * (`{ from, to, yes? }`: the net's slots in the range, planned as `leasecron backfill` plans them, left for
 * the holder) and `/cancel-backfill`, each with
 * `Authorization: Bearer <LEASECRON_ADMIN_TOKEN>` and an optional JSON body, each calling the one set of
 * control actions (control/control-actions.ts) the CLI and the library call too.
 *
 * The checks, in order, each answered as `{ "error": { "code", "message" } }`: the API is off (404
 * `admin-off`: without a token there is nothing at /nets/), a path that is no action (404), a method
 * other than POST (405), no bearer token (401, with `WWW-Authenticate: Bearer`), a wrong one (403, the
 * comparison in constant time), a net this worker does not know (404 — only after the token, so the
 * nets cannot be listed without it), the body (413 too large, 415 not JSON, 400 malformed or a field
 * of the wrong type), an action that cannot apply (409: resume a net not paused, run a net disabled
 * here; a backfill while one runs, named; a cancel with none running), a value that cannot be used (422:
 * a `for` that is no duration, an `until` in the past, a range the backfill plan refuses), the
 * store (503). A success answers 200 (pause, resume, cancel-backfill) or 202 (run, backfill: the holder
 * runs it within seconds)
 * with the action's outcome, a sentence and the net's resulting controls, and is logged once at info
 * with the action, the net, `by` and `reason` — never the token or any header.
 *
 * What it is not: the status routes (read-only, unauthenticated), or a user system: one shared token
 * opens every action on every net, and `by` is what the caller says, not who it is.
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http'
import * as z from 'zod'
import { ControlActionError } from '../../control/control-action-error.js'
import {
  type ControlAction,
  type ControlActionResult,
  pauseNet,
  requestRun,
  resumeNet,
} from '../../control/control-actions.js'
import { MAX_TEXT_CHARS } from '../../control/control-text-limit.js'
import { type BackfillActionResult, cancelBackfill, requestBackfill } from '../../control/backfill-actions.js'
import type { NetConfig } from '../../config/worker-config.js'
import { planBackfill } from '../../term/backfill-plan.js'
import { nearestName } from '../../config/nearest-name.js'
import { NetControlError } from '../../control/net-control-error.js'
import type { NetControlStore } from '../../control/net-control-store.js'
import type { Clock } from '../../lease/clock.js'
import { scrubbedErrorMessage } from '../../config/scrub.js'
import type { Logger } from '../../observe/logger.js'
import { bearerToken, tokenMatches } from './admin-token.js'
import { type AdminProblem, readJsonBody } from './read-json-body.js'

/** A net as the API knows it: by name, whether this replica runs it, and its configuration (a backfill's slots). */
export interface AdminNet {
  name: string
  enabled: boolean
  config?: NetConfig
}

/** The actions at /nets/<net>/<action>: the three controls and the two backfill actions. */
type AdminAction = ControlAction | 'backfill' | 'cancel-backfill'

/** What an accepted action answers. */
type AdminResult = ControlActionResult | BackfillActionResult

export interface AdminRoutesOptions {
  /** LEASECRON_ADMIN_TOKEN; undefined turns the API off (every /nets/ path answers 404 `admin-off`). */
  token: string | undefined
  nets: readonly AdminNet[]
  /** The control store, once the worker's runtime is open (503 `not-ready` before). */
  controls(): NetControlStore | undefined
  clock: Clock
  log: Logger
  /** The largest body read (bytes); a larger one answers 413. */
  maxBodyBytes: number
  /** LEASECRON_RUN_HISTORY: a backfill holds no more slots than the ledger keeps per net. */
  runHistory?: number
  /** Called after each accepted action (the worker drops its cached status snapshot). */
  onAccepted?: (result: AdminResult) => void
}

type Reply = (status: number, body: string, type?: string, headers?: OutgoingHttpHeaders) => void

/** What a request is answered: a status, a JSON body, extra headers. */
interface Answer {
  status: number
  body: object
  headers?: OutgoingHttpHeaders
}

/** How long one action's store calls may take before the answer is a 503. */
export const ACTION_BOUND_MS = 5_000

/** A parsed body: its fields (for the log line) and the action over them. */
interface ParsedAction {
  input: Record<string, unknown>
  act(controls: NetControlStore, net: AdminTarget, now: Date, signal: AbortSignal): Promise<AdminResult>
}

/** The net an action is for, as the API knows it, and the ledger's kept runs per net. */
interface AdminTarget {
  net: AdminNet
  runHistory: number
}

/** One action's route: its body's schema, its success status, and whether the net must be enabled here. */
interface AdminRoute {
  fields: string
  parse(value: unknown): { ok: true; action: ParsedAction } | { ok: false; message: string }
  status: 200 | 202
  needsEnabled: boolean
}

function route<T extends Record<string, unknown>>(
  schema: z.ZodType<T>,
  status: 200 | 202,
  needsEnabled: boolean,
  act: (
    controls: NetControlStore,
    net: string,
    input: T,
    now: Date,
    signal: AbortSignal,
    target: AdminTarget,
  ) => Promise<AdminResult>,
): AdminRoute {
  const fields = schema instanceof z.ZodObject ? Object.keys(schema.shape).join(', ') : ''
  return {
    fields,
    status,
    needsEnabled,
    parse(value) {
      const parsed = schema.safeParse(value)
      if (!parsed.success)
        return {
          ok: false,
          message: `${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}${meant(i, fields)}`).join('; ')}; expected a JSON object with any of: ${fields}`,
        }
      const input = parsed.data
      const run: ParsedAction['act'] = (c, target, now, signal) =>
        act(c, target.net.name, input, now, signal, target)
      return { ok: true, action: { input, act: run } }
    },
  }
}

/** ` — did you mean "reason"?` after an unknown body field within a typo of a known one (`reson`). */
function meant(issue: z.core.$ZodIssue, fields: string): string {
  if (issue.code !== 'unrecognized_keys') return ''
  const known = fields.split(', ')
  const near = issue.keys.map((key) => nearestName(key, known, 2)).filter((n) => n !== undefined)
  return near.length > 0 ? ` — did you mean ${near.map((n) => JSON.stringify(n)).join(', ')}?` : ''
}

const text = z.string().max(MAX_TEXT_CHARS)

/** The route table: one small handler per action. */
const ROUTES: Record<AdminAction, AdminRoute> = {
  pause: route(
    z.strictObject({
      for: z.string().optional(),
      until: z.string().optional(),
      reason: text.optional(),
      by: text.optional(),
      abort: z.boolean().optional(),
    }),
    200,
    false,
    (controls, net, input, now, signal) => pauseNet(controls, net, input, now, { signal }),
  ),
  resume: route(
    z.strictObject({ catchUp: z.boolean().optional(), reason: text.optional(), by: text.optional() }),
    200,
    false,
    (controls, net, input, now, signal) => resumeNet(controls, net, input, now, { signal }),
  ),
  run: route(
    z.strictObject({ reason: text.optional(), by: text.optional() }),
    202,
    true,
    (controls, net, input, now, signal) => requestRun(controls, net, input, now, { signal }),
  ),
  backfill: route(
    z.strictObject({
      from: z.string(),
      to: z.string(),
      yes: z.boolean().optional(),
      reason: text.optional(),
      by: text.optional(),
    }),
    202,
    true,
    (controls, net, input, now, signal, target) => {
      const plan = backfillSlots(target, input, now)
      return requestBackfill(controls, net, { ...input, ...plan }, now, { signal })
    },
  ),
  'cancel-backfill': route(
    z.strictObject({ reason: text.optional(), by: text.optional() }),
    200,
    false,
    (controls, net, input, now, signal) => cancelBackfill(controls, net, input, now, { signal }),
  ),
}

/**
 * The slots of a backfill asked over HTTP, planned and bounded as `leasecron backfill` plans them
 * (term/backfill-plan.ts). Throws ControlActionError (422) naming the field for a range it refuses.
 */
function backfillSlots(
  target: AdminTarget,
  input: { from: string; to: string; yes?: boolean | undefined },
  now: Date,
): { from: Date; to: Date; slots: Date[] } {
  const { net, runHistory } = target
  if (!net.config)
    throw new ControlActionError('backfill', net.name, ['net'], 'expected a net this worker has configured')
  const request = {
    net: net.config,
    from: input.from,
    to: input.to,
    now,
    dryRun: false,
    yes: input.yes === true,
  }
  const plan = planBackfill({ ...request, runHistory })
  // The plan speaks the CLI's options; the API's fields carry the same names without dashes.
  if (!plan.ok)
    throw new ControlActionError(
      'backfill',
      net.name,
      ['from', 'to'],
      plan.problem.replace(/--(from|to|yes)\b/g, '$1'),
    )
  if (plan.slots.length === 0)
    throw new ControlActionError(
      'backfill',
      net.name,
      ['from', 'to'],
      'expected a range holding at least one slot of the net',
    )
  return plan
}

/** Answers `path` when it is under /nets and returns true; returns false for any other path. */
export function serveAdminRoute(
  req: IncomingMessage,
  path: string,
  options: AdminRoutesOptions,
  reply: Reply,
): boolean {
  if (path !== '/nets' && !path.startsWith('/nets/')) return false
  answer(req, path, options)
    .catch((error: unknown) => {
      options.log.error({ err: error, path }, 'admin API: the request failed unexpectedly')
      return problem({
        status: 500,
        code: 'internal',
        message: 'the request failed unexpectedly; see the worker log',
      })
    })
    .then(({ status, body, headers }) =>
      reply(status, `${JSON.stringify(body, null, 2)}\n`, 'application/json', headers),
    )
  return true
}

/** The checks of the module doc, in order, then the action. */
async function answer(req: IncomingMessage, path: string, o: AdminRoutesOptions): Promise<Answer> {
  if (o.token === undefined)
    return problem({
      status: 404,
      code: 'admin-off',
      message:
        'the admin API is off on this worker; set LEASECRON_ADMIN_TOKEN (16 or more characters) to turn it on',
    })
  const target = parsePath(path)
  if (!target)
    return problem({
      status: 404,
      code: 'not-found',
      message: `no such action: ${path}; expected POST /nets/<net>/pause, /resume, /run, /backfill or /cancel-backfill`,
    })
  if (req.method !== 'POST')
    return {
      ...problem({ status: 405, code: 'method-not-allowed', message: `expected POST; got ${req.method}` }),
      headers: { allow: 'POST' },
    }
  const refused = checkToken(req.headers.authorization, o.token) ?? checkNet(target.net, o.nets)
  if (refused) return refused
  const body = await readJsonBody(req, o.maxBodyBytes)
  if (!body.ok) return problem(body)
  const parsed = ROUTES[target.action].parse(body.value)
  if (!parsed.ok) return problem({ status: 400, code: 'bad-body', message: parsed.message })
  return act(target.action, target.net, parsed.action, o)
}

/** `/nets/<net>/<action>` as its net (URL-decoded) and action; undefined for any other path. */
function parsePath(path: string): { net: string; action: AdminAction } | undefined {
  const match = /^\/nets\/([^/]+)\/(pause|resume|run|backfill|cancel-backfill)$/.exec(path)
  if (!match?.[1] || !match[2]) return undefined
  try {
    return { net: decodeURIComponent(match[1]), action: match[2] as AdminAction }
  } catch {
    return undefined
  }
}

/** 401 without a bearer token, 403 with a wrong one; undefined when it is the configured token. */
function checkToken(header: string | undefined, token: string): Answer | undefined {
  const given = bearerToken(header)
  if (given === undefined)
    return {
      ...problem({
        status: 401,
        code: 'unauthorized',
        message: 'expected an Authorization: Bearer <token> header carrying LEASECRON_ADMIN_TOKEN',
      }),
      headers: { 'www-authenticate': 'Bearer realm="leasecron"' },
    }
  if (!tokenMatches(given, token))
    return problem({
      status: 403,
      code: 'forbidden',
      message: 'the bearer token is not this worker’s LEASECRON_ADMIN_TOKEN',
    })
  return undefined
}

/** 404 for a net this worker does not know; undefined when it knows it. */
function checkNet(net: string, nets: readonly AdminNet[]): Answer | undefined {
  if (nets.some((n) => n.name === net)) return undefined
  return problem({
    status: 404,
    code: 'unknown-net',
    message: `no net named ${JSON.stringify(net)} on this worker; expected one of: ${nets.map((n) => n.name).join(', ')}`,
  })
}

/**
 * Outcomes that changed nothing, answered 409: a resume of a net not paused, a backfill while one runs (the
 * body names it), a cancel with none running.
 */
const CONFLICTS: ReadonlySet<string> = new Set(['not-paused', 'backfill-pending', 'no-backfill'])

/** LEASECRON_RUN_HISTORY's default, when the worker did not say. */
const DEFAULT_RUN_HISTORY = 1000

/** Runs the action; refuses one that cannot apply (409), a value it cannot use (422), a silent store (503). */
async function act(
  action: AdminAction,
  net: string,
  parsed: ParsedAction,
  o: AdminRoutesOptions,
): Promise<Answer> {
  const route = ROUTES[action]
  if (route.needsEnabled && !o.nets.find((n) => n.name === net)?.enabled)
    return problem({
      status: 409,
      code: 'net-disabled',
      message: `${net} is disabled on this worker (its ENABLED variable is false): no replica here runs it; enable it to run it now`,
    })
  const controls = o.controls()
  if (!controls)
    return problem({
      status: 503,
      code: 'not-ready',
      message: 'the worker is still opening its store; try again in a moment',
    })
  const known = o.nets.find((n) => n.name === net) ?? { name: net, enabled: false }
  const target = { net: known, runHistory: o.runHistory ?? DEFAULT_RUN_HISTORY }
  try {
    const result = await parsed.act(controls, target, o.clock.now(), AbortSignal.timeout(ACTION_BOUND_MS))
    if (CONFLICTS.has(result.outcome))
      return {
        status: 409,
        body: {
          error: { code: result.outcome, message: result.message },
          control: result.control,
          ...('backfill' in result && result.backfill ? { backfill: result.backfill } : {}),
        },
      }
    logAccepted(o.log, result, parsed.input)
    o.onAccepted?.(result)
    return { status: route.status, body: result }
  } catch (error) {
    return refusal(error, action, net, o.log)
  }
}

/** A failed action's answer: 422 for a value it cannot use, 503 for a store that did not answer. */
function refusal(error: unknown, action: AdminAction, net: string, log: Logger): Answer {
  if (error instanceof ControlActionError)
    return problem({ status: 422, code: 'invalid', message: `${error.message}` })
  if (error instanceof NetControlError && error.code === 'NET_CONTROL_INVALID')
    return problem({ status: 422, code: 'invalid', message: error.message })
  log.warn({ err: error, action, net }, 'admin API: the control store did not answer')
  return problem({
    status: 503,
    code: 'store-unavailable',
    message: `the control store did not answer (${scrubbedErrorMessage(error)}); the ${action} may or may not be recorded: read GET /status before trying again`,
  })
}

/** The one line an accepted action leaves: what, which net, who and why (the body's fields only). */
function logAccepted(log: Logger, result: AdminResult, input: Record<string, unknown>): void {
  const { action, net, outcome } = result
  const fields = Object.fromEntries(
    ['by', 'reason', 'for', 'until', 'abort', 'catchUp', 'from', 'to', 'yes']
      .filter((k) => input[k] !== undefined)
      .map((k) => [k, input[k]]),
  )
  log.info({ action, net, outcome, via: 'http', ...fields }, `admin API: ${result.message}`)
}

function problem(p: AdminProblem): Answer {
  return {
    status: p.status,
    body: { error: { code: p.code, message: p.message } },
    ...(p.close ? { headers: { connection: 'close' } } : {}),
  }
}
