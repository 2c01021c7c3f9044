/**
 * The sandbox forge's own errors (start-up and seeding), typed by `code`. Errors the sandbox answers to
 * HTTP clients are GitHub-shaped responses instead, never thrown.
 */

/** Codes a SandboxError carries. */
export type SandboxErrorCode = 'SANDBOX_NON_LOOPBACK' | 'SANDBOX_FIXTURE_INVALID' | 'SANDBOX_OPTIONS_INVALID'

/** A sandbox could not start or seed; `message` names the operation and what was expected. */
export class SandboxError extends Error {
  override readonly name = 'SandboxError'
  readonly code: SandboxErrorCode

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}
