/**
 * Lanes: which net a forge request is charged to.
 *
 * `withLane(name, fn)` marks everything `fn` does, through AsyncLocalStorage. The mark reaches the
 * transport as a private request header stamped by `lanePlugin`, an Octokit plugin that must be listed
 * last so its hook runs first, in the caller's async context — before the throttling queue, which does
 * not carry that context. The transport reads and strips the header (see `transport.ts`); it never
 * reads AsyncLocalStorage itself.
 *
 * Not a security boundary and not an access control: a lane only decides which counter a request
 * lands in.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

/** The private header that carries a request's lane from the Octokit hook to the transport. */
export const LANE_HEADER = 'x-leasecron-lane'

/** The lane installation-token mints are charged to, whatever lane asked for the token. */
export const AUTH_LANE = 'auth'

/** The lane of requests made outside any `withLane`. */
export const OTHER_LANE = 'other'

const LANE_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/
const TOKEN_MINT_PATH = /^(?:\/api\/v3)?\/app\/installations\/[^/]+\/access_tokens$/

const lanes = new AsyncLocalStorage<string>()

/** Thrown when a lane name is not a short lowercase identifier; names become log keys and metric labels. */
export class LaneNameError extends Error {
  override readonly name = 'LaneNameError'
  readonly code = 'FORGE_LANE_NAME_INVALID'
}

/**
 * Runs `fn` with every forge request it makes (synchronously or in any async work it starts) charged to
 * lane `name`, and returns what `fn` returns. Nested calls rebind the lane for the inner `fn`.
 * Throws LaneNameError unless `name` matches /^[a-z0-9][a-z0-9._-]{0,62}$/.
 */
export function withLane<T>(name: string, fn: () => T): T {
  if (typeof name !== 'string' || !LANE_NAME.test(name)) {
    throw new LaneNameError(
      `forge lane: withLane got name ${JSON.stringify(name)}; expected 1-63 chars of a-z, 0-9, '.', '_', '-', starting with a letter or digit`,
    )
  }
  return lanes.run(name, fn)
}

/** The lane of the current async context, or undefined outside any `withLane`. */
export function currentLane(): string | undefined {
  return lanes.getStore()
}

/**
 * The lane a request is charged to, decided by the transport from the request path and the header the
 * plugin stamped: token mints always go to `auth` (they serve every lane), unmarked requests to `other`.
 */
export function chargedLane(pathname: string, stamped: string | undefined): string {
  if (TOKEN_MINT_PATH.test(pathname)) return AUTH_LANE
  return stamped !== undefined && LANE_NAME.test(stamped) ? stamped : OTHER_LANE
}

interface HookableOctokit {
  hook: { before(name: 'request', fn: (options: { headers: Record<string, unknown> }) => void): void }
}

/**
 * Octokit plugin that stamps the current lane into LANE_HEADER. List it last in `.plugin(...)`: hooks
 * registered later wrap earlier ones, so this one runs before throttling and retry, while the caller's
 * async context is still current; retries reuse the stamped options.
 */
export function lanePlugin(octokit: HookableOctokit): Record<string, never> {
  octokit.hook.before('request', (options) => {
    const lane = lanes.getStore()
    if (lane !== undefined) options.headers[LANE_HEADER] = lane
  })
  return {}
}
