/**
 * The error a forge request raises when the App could not get a token for its installation: GitHub
 * refused the mint (`POST /app/installations/{id}/access_tokens`) — 404 for an id that is not an
 * installation of this App (a wrong id, or the App was uninstalled), 403 for a suspended one, 401 for an
 * App id or key it does not accept. Not a refusal of the request the net sent, so it carries no `status`:
 * a net that reads a 404 as "that pull request is gone" (the merge-gate reconciler) must not take a
 * missing installation for a missing pull request and settle every run it offers. The mint's own answer
 * is `cause`; `mintStatus` its status.
 */

export class InstallationTokenError extends Error {
  override readonly name = 'InstallationTokenError'
  readonly code = 'FORGE_INSTALLATION_TOKEN'

  constructor(
    readonly installationId: number,
    /** The status GitHub answered the token mint with. */
    readonly mintStatus: number,
    options: { cause: unknown },
  ) {
    super(
      `forge: no token for installation ${installationId}: GitHub answered the token mint ${mintStatus} (${meaning(mintStatus)}); check GITHUB_INSTALLATION_ID or GITHUB_INSTALLATION_IDS and the App's installations`,
      options,
    )
  }
}

/** What a refused mint most likely means, in the operator's terms. */
function meaning(status: number): string {
  if (status === 404) return 'not an installation of this App: a wrong id, or the App was uninstalled there'
  if (status === 403) return 'the installation is suspended, or the App may not act there'
  if (status === 401) return 'the App id or private key was not accepted'
  return 'the mint was refused'
}

/**
 * `error` as an InstallationTokenError when GitHub refused the mint (a 4xx answer); otherwise `error` itself.
 * A 5xx is left as it is: Octokit reports a network failure as status 500, and both are the forge's to retry
 * (an unknown host's ENOTFOUND counts its tries there before it gives up), not a refusal.
 */
export function mintRefusal(installationId: number, error: unknown): unknown {
  const status = (error as { status?: unknown } | null)?.status
  if (typeof status !== 'number' || status < 400 || status >= 500) return error
  return new InstallationTokenError(installationId, status, { cause: error })
}
