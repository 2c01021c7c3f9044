/**
 * Which installations of the GitHub App the worker acts as: `GITHUB_INSTALLATION_ID` (one installation,
 * the original variable; its nets keep their plain lease and ledger names), `GITHUB_INSTALLATION_IDS`
 * (a comma list, each per-installation net campaigns as `<net>:<installation>`), or
 * `GITHUB_INSTALLATION_IDS=all` (discovered from `GET /app/installations`, see installation-discovery.ts).
 *
 * Not discovery and not a client: it only reads and checks the two variables.
 */
import type { ForgeEnvIssue } from '../forge-config-error.js'

/**
 * The installations to act as. `one`: GITHUB_INSTALLATION_ID, names unchanged; `list`: the ids of
 * GITHUB_INSTALLATION_IDS in the order given; `all`: whatever the App is installed on, not suspended.
 */
export type InstallationSet =
  | { kind: 'one'; id: number }
  | { kind: 'list'; ids: readonly number[] }
  | { kind: 'all' }

/** The most ids a list may name: a longer one is surely a pasted mistake (use `all`). */
export const MAX_LISTED_INSTALLATIONS = 10_000

const ID = /^[0-9]{1,15}$/
const LIST_EXPECTED =
  'a comma-separated list of installation ids (positive integers, e.g. `12,34`), or `all` to act as every installation the App is on'

/** A positive safe integer from its digits, or undefined. */
function installationId(text: string): number | undefined {
  const trimmed = text.trim()
  if (!ID.test(trimmed)) return undefined
  const n = Number(trimmed)
  return Number.isSafeInteger(n) && n > 0 ? n : undefined
}

/**
 * Reads GITHUB_INSTALLATION_IDS and GITHUB_INSTALLATION_ID through `read` (undefined: unset or blank),
 * pushing each problem onto `errors` (naming the variable, what was expected and the value); undefined when
 * there was one. Both set is accepted only when they name the same single installation.
 */
export function readInstallationSet(
  read: (name: string) => string | undefined,
  errors: ForgeEnvIssue[],
): InstallationSet | undefined {
  const listText = read('GITHUB_INSTALLATION_IDS')
  const oneText = read('GITHUB_INSTALLATION_ID')
  const one = oneText === undefined ? undefined : installationId(oneText)
  if (oneText !== undefined && one === undefined)
    errors.push({
      variable: 'GITHUB_INSTALLATION_ID',
      expected: 'a positive integer (digits only)',
      value: oneText,
    })
  if (listText === undefined) {
    if (oneText === undefined)
      errors.push({
        variable: 'GITHUB_INSTALLATION_ID',
        expected:
          'a positive integer (digits only), or GITHUB_INSTALLATION_IDS (a comma list of ids, or `all`); neither is set',
      })
    return one === undefined ? undefined : { kind: 'one', id: one }
  }
  const set = parseInstallationList(listText, errors)
  if (set === undefined || oneText === undefined) return set
  if (one !== undefined && set.kind === 'list' && set.ids.length === 1 && set.ids[0] === one)
    return { kind: 'one', id: one }
  errors.push({
    variable: 'GITHUB_INSTALLATION_IDS',
    expected: `only one of GITHUB_INSTALLATION_ID (one installation) and GITHUB_INSTALLATION_IDS (a list, or \`all\`); both are set, to different installations (GITHUB_INSTALLATION_ID=${oneText.trim()}) — unset GITHUB_INSTALLATION_ID`,
    value: listText,
  })
  return undefined
}

/** GITHUB_INSTALLATION_IDS's value as a set, or undefined with the problem pushed onto `errors`. */
export function parseInstallationList(text: string, errors: ForgeEnvIssue[]): InstallationSet | undefined {
  const problem = (why: string) => {
    errors.push({ variable: 'GITHUB_INSTALLATION_IDS', expected: `${LIST_EXPECTED}; ${why}`, value: text })
    return undefined
  }
  if (text.trim().toLowerCase() === 'all') return { kind: 'all' }
  const parts = text.split(',').map((part) => part.trim())
  if (parts.some((part) => part === '')) return problem('an entry is empty (a doubled or trailing comma)')
  if (parts.length > MAX_LISTED_INSTALLATIONS)
    return problem(`it names ${parts.length} ids, more than ${MAX_LISTED_INSTALLATIONS} (use \`all\`)`)
  const bad = parts.filter((part) => installationId(part) === undefined)
  if (bad.length > 0) return problem(`not an installation id: ${bad.slice(0, 5).join(', ')}`)
  const ids = parts.map(Number)
  const seen = new Set<number>()
  const twice = ids.filter((id) => seen.size === seen.add(id).size)
  if (twice.length > 0) return problem(`named twice: ${[...new Set(twice)].join(', ')}`)
  return { kind: 'list', ids }
}

/** The installations a set names now (`all`: none until discovered). */
export function listedInstallations(set: InstallationSet): readonly number[] {
  return set.kind === 'one' ? [set.id] : set.kind === 'list' ? set.ids : []
}

/**
 * The name a per-installation net's lease and ledger slots take: `<net>:<installation>`, or the plain name
 * when the set is `one` (GITHUB_INSTALLATION_ID keeps the names an upgrade finds in the store).
 */
export function installationScopedName(name: string, set: InstallationSet, installation: number): string {
  return set.kind === 'one' ? name : `${name}:${installation}`
}
