/**
 * The sandbox App's installations: each an account (an organization login) whose repositories — those
 * whose owner is that login — its tokens can see, optionally suspended. Without any configured, the App
 * has one installation that sees every repository (the sandbox as it always was).
 *
 * As GitHub answers: `GET /app/installations` lists them (paged), a token is minted only for a known
 * installation (404 otherwise) that is not suspended (403), and an installation's token gets 404 for a
 * repository outside its account. Not the data (sandbox-store.ts) and not the budgets
 * (sandbox-rate-limit.ts, already per installation).
 */

/** One installation as the sandbox holds it. */
export interface SandboxInstallation {
  id: number
  /** The account it is installed on; its repositories are the ones it sees. Undefined: every repository. */
  account: string | undefined
  /** When it was suspended (ms), or null. */
  suspendedAt: number | null
  createdAt: number
}

/** An installation as `startSandboxForge({ installations })` and `add` take it. */
export interface SandboxInstallationInput {
  id: number
  /** The organization login whose repositories it sees. */
  account: string
  suspended?: boolean
}

/** The installations of the sandbox App, in the order they were added. */
export class SandboxInstallations {
  readonly #byId = new Map<number, SandboxInstallation>()

  constructor(private readonly clock: () => number) {}

  /** Adds (or replaces) an installation; throws for an id that is not a positive integer. */
  add(input: SandboxInstallationInput | { id: number; account: undefined }): SandboxInstallation {
    if (!Number.isSafeInteger(input.id) || input.id <= 0)
      throw new RangeError(`sandbox installation: id ${input.id} is not a positive integer`)
    const now = this.clock()
    const suspended = 'suspended' in input && input.suspended === true
    const record = {
      id: input.id,
      account: input.account,
      suspendedAt: suspended ? now : null,
      createdAt: now,
    }
    this.#byId.set(input.id, record)
    return record
  }

  /** Removes an installation (the App uninstalled); its tokens stop working. Resolves whether it existed. */
  remove(id: number): boolean {
    return this.#byId.delete(id)
  }

  /** Suspends or unsuspends an installation; false when there is none with that id. */
  suspend(id: number, suspended: boolean): boolean {
    const record = this.#byId.get(id)
    if (!record) return false
    record.suspendedAt = suspended ? this.clock() : null
    return true
  }

  get(id: number): SandboxInstallation | undefined {
    return this.#byId.get(id)
  }

  /** Every installation, suspended ones included (GitHub lists them, with `suspended_at`), by id. */
  list(): SandboxInstallation[] {
    return [...this.#byId.values()].sort((a, b) => a.id - b.id)
  }

  /** Whether installation `id` (existing, not suspended) may see a repository of `owner`. */
  sees(id: number, owner: string): boolean {
    const record = this.#byId.get(id)
    if (!record || record.suspendedAt !== null) return false
    return record.account === undefined || record.account.toLowerCase() === owner.toLowerCase()
  }
}
