/**
 * The error a forge request raises when the forge cannot be reached at all — refused connection, unknown
 * host, a port fetch refuses — as opposed to an HTTP answer. It names where (host:port) and why (the
 * system code), carries the network error as `cause`, and says whether retrying can help.
 */

/** The forge at `where` did not answer; `permanent` when retrying cannot help (bad port, unknown host). */
export class ForgeUnreachableError extends Error {
  override readonly name = 'ForgeUnreachableError'
  readonly code = 'FORGE_UNREACHABLE'

  constructor(
    /** `host:port` of the forge. */
    readonly where: string,
    /** The system code (`ECONNREFUSED`, `ENOTFOUND`, `BAD_PORT`, …). */
    readonly reason: string,
    /** True when retrying this request cannot succeed (it failed without a retry). */
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      `forge request: cannot reach ${where} (${describeReason(reason)})${permanent ? '; not retrying' : ''}`,
      options,
    )
  }
}

/** A system code in words. */
export function describeReason(reason: string): string {
  switch (reason) {
    case 'ECONNREFUSED':
      return 'connection refused'
    case 'ENOTFOUND':
      return 'host not found in DNS'
    case 'EAI_AGAIN':
      return 'DNS lookup failed for now'
    case 'BAD_PORT':
      return 'a port fetch refuses to connect to (the "bad ports" of the Fetch standard)'
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out'
    default:
      return reason
  }
}
