/**
 * The sandbox's App authentication: who a request's `Authorization` header says it is — the App (an
 * RS256 JWT signed with its key), an installation (a token the sandbox minted and that has not
 * expired), anonymous, or invalid (with GitHub's message) — and the minting of installation tokens.
 * Not the routes' permission checks (the server decides what each caller may call).
 */
import { createPublicKey, type KeyObject, randomBytes } from 'node:crypto'
import { verifyAppJwt } from './app-jwt.js'
import { SandboxError } from './sandbox-error.js'

/** Who is calling. `token` is the installation token itself (per-token etags are keyed by it). */
export type SandboxCaller =
  | { kind: 'app' }
  | { kind: 'installation'; id: number; token: string }
  | { kind: 'anonymous' }
  | { kind: 'invalid'; reason: string }

/** The App's key and the tokens minted for its installation. */
export class SandboxAuth {
  readonly publicKey: string
  readonly #publicKey: KeyObject
  readonly #appId: number
  readonly #clock: () => number
  readonly #tokenTtlMs: number
  readonly #tokens = new Map<string, { installationId: number; expiresAt: number }>()

  /** Throws SandboxError `SANDBOX_OPTIONS_INVALID` when `privateKey` is not a PEM RSA private key. */
  constructor(options: { appId: number; privateKey: string; tokenTtlMs: number; clock: () => number }) {
    try {
      this.#publicKey = createPublicKey(options.privateKey.replace(/\\n/g, '\n'))
    } catch (cause) {
      throw new SandboxError(
        'SANDBOX_OPTIONS_INVALID',
        'sandbox start: privateKey is not a PEM RSA private key',
        {
          cause,
        },
      )
    }
    this.publicKey = this.#publicKey.export({ type: 'spki', format: 'pem' }).toString()
    this.#appId = options.appId
    this.#clock = options.clock
    this.#tokenTtlMs = options.tokenTtlMs
  }

  /** Mints an installation token (`ghs_…`), valid for the token lifetime from now, whole seconds. */
  mint(installationId: number): { token: string; expiresAt: number } {
    const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`
    const expiresAt = Math.floor((this.#clock() + this.#tokenTtlMs) / 1000) * 1000
    this.#tokens.set(token, { installationId, expiresAt })
    return { token, expiresAt }
  }

  /** Every token minted so far. */
  issued(): string[] {
    return [...this.#tokens.keys()]
  }

  /** Reads an `Authorization` header (`token X` or `Bearer X`). */
  identify(header: string | undefined): SandboxCaller {
    if (header === undefined) return { kind: 'anonymous' }
    const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header.trim())
    if (match === null) return { kind: 'invalid', reason: 'Bad credentials' }
    const credential = match[1] as string
    if (credential.split('.').length === 3) {
      const verdict = verifyAppJwt(credential, this.#publicKey, this.#appId, Math.floor(this.#clock() / 1000))
      return verdict.ok ? { kind: 'app' } : { kind: 'invalid', reason: verdict.reason }
    }
    const held = this.#tokens.get(credential)
    if (held === undefined || held.expiresAt <= this.#clock())
      return { kind: 'invalid', reason: 'Bad credentials' }
    return { kind: 'installation', id: held.installationId, token: credential }
  }
}
