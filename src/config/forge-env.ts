/**
 * The forge section of the environment: GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE,
 * GITHUB_INSTALLATION_ID or GITHUB_INSTALLATION_IDS and GITHUB_API_URL, read into the forge's
 * configuration, every problem reported as a ConfigIssue naming its variable and what was expected — never
 * a key's content.
 *
 * Not the forge's own rules for an id, a key or a URL (forge/forge-config.ts, shared with `createForge`'s
 * check), nor the rest of the configuration (forge-section.ts composes this one with the sandbox choice).
 */
import { readFileSync } from 'node:fs'
import {
  checkPrivateKey,
  DEFAULT_GITHUB_API_URL,
  type ForgeAppConfig,
  type ForgeConfig,
  hasCredentials,
  NUMERIC_ID,
  normalizePrivateKey,
  PEM_KEY,
  parseApiUrl,
  parseForgeId,
} from '../forge/forge-config.js'
import {
  type InstallationSet,
  listedInstallations,
  readInstallationSet,
} from '../forge/installations/installation-set.js'
import type { ConfigIssue } from './config-error.js'

/**
 * The outcome of `parseForgeEnv`: the App, the installations it acts as, and `config` — the App as the
 * first listed installation (absent under `GITHUB_INSTALLATION_IDS=all`, where none is known before discovery).
 */
export type ForgeEnvResult =
  | { ok: true; app: ForgeAppConfig; installations: InstallationSet; config?: ForgeConfig }
  | { ok: false; errors: ConfigIssue[] }

/** The variables that select a GitHub App; none set means "no forge configured" (the sandbox). */
export const GITHUB_APP_VARIABLES = [
  'GITHUB_APP_ID',
  'GITHUB_APP_PRIVATE_KEY',
  'GITHUB_APP_PRIVATE_KEY_FILE',
  'GITHUB_INSTALLATION_ID',
  'GITHUB_INSTALLATION_IDS',
] as const

const URL_WITH_CREDENTIALS =
  'an absolute http(s) URL without credentials; this one carries a user or password (user:password@), which would reach logs and errors — the App authenticates with its key (value not shown)'

/**
 * Whether a value meant as a path is key material: a PEM header, or line breaks (literal or real) no
 * path has. Such a value is never read as a file nor echoed.
 */
function looksLikeKeyMaterial(value: string): boolean {
  return /-----BEGIN /.test(value) || /\r|\n|\\n/.test(value)
}

/** True when any GitHub App variable is set (non-empty); the worker uses the sandbox when none is. */
export function hasGitHubAppEnv(env: NodeJS.ProcessEnv): boolean {
  return GITHUB_APP_VARIABLES.some((name) => (env[name] ?? '').trim() !== '')
}

/**
 * Reads GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_FILE, GITHUB_INSTALLATION_ID or
 * GITHUB_INSTALLATION_IDS (installation-set.ts) and GITHUB_API_URL. Returns every problem at once, each naming its variable and what was expected;
 * key problems never include the key's content. Reads the key file synchronously (start-up only).
 */
export function parseForgeEnv(env: NodeJS.ProcessEnv): ForgeEnvResult {
  const errors: ConfigIssue[] = []
  const read = (name: string) => {
    const value = env[name]
    return value === undefined || value.trim() === '' ? undefined : value
  }

  const id = (name: string): number | undefined => {
    const raw = read(name)
    if (raw === undefined) {
      errors.push({ variable: name, expected: `${NUMERIC_ID}; it is not set` })
      return undefined
    }
    const parsed = parseForgeId(raw)
    if (parsed === undefined) errors.push({ variable: name, expected: NUMERIC_ID, value: raw })
    return parsed
  }
  const appId = id('GITHUB_APP_ID')
  const installations = readInstallationSet(read, errors)

  let privateKey: string | undefined
  const inline = read('GITHUB_APP_PRIVATE_KEY')
  const file = read('GITHUB_APP_PRIVATE_KEY_FILE')
  if (inline !== undefined && file !== undefined) {
    errors.push({
      variable: 'GITHUB_APP_PRIVATE_KEY',
      expected: 'only one of GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_FILE to be set',
    })
  } else if (inline !== undefined) {
    const problem = checkPrivateKey(inline)
    if (problem === undefined) privateKey = normalizePrivateKey(inline)
    else errors.push({ variable: 'GITHUB_APP_PRIVATE_KEY', expected: `${PEM_KEY}; ${problem}` })
  } else if (file !== undefined) {
    privateKey = readKeyFile(file, errors)
  } else {
    errors.push({
      variable: 'GITHUB_APP_PRIVATE_KEY',
      expected: `${PEM_KEY}, or GITHUB_APP_PRIVATE_KEY_FILE naming a file that holds one; neither is set`,
    })
  }

  const rawUrl = read('GITHUB_API_URL') ?? DEFAULT_GITHUB_API_URL
  const apiUrl = parseApiUrl(rawUrl)
  if (hasCredentials(rawUrl)) {
    errors.push({ variable: 'GITHUB_API_URL', expected: URL_WITH_CREDENTIALS })
  } else if (apiUrl === undefined) {
    errors.push({
      variable: 'GITHUB_API_URL',
      expected: 'an absolute http(s) URL without query or fragment',
      value: rawUrl,
    })
  }

  if (
    errors.length > 0 ||
    appId === undefined ||
    installations === undefined ||
    privateKey === undefined ||
    apiUrl === undefined
  ) {
    return { ok: false, errors }
  }
  const app = { appId, privateKey, apiUrl }
  const first = listedInstallations(installations)[0]
  return {
    ok: true,
    app,
    installations,
    ...(first === undefined ? {} : { config: { ...app, installationId: first } }),
  }
}

/**
 * The key in GITHUB_APP_PRIVATE_KEY_FILE's file, normalized; undefined (with the problem in `errors`)
 * when the value is key material rather than a path, the file cannot be read or does not hold a key.
 */
function readKeyFile(file: string, errors: ConfigIssue[]): string | undefined {
  if (looksLikeKeyMaterial(file)) {
    // The key itself put where its path belongs: name the mistake, never echo the value.
    errors.push({
      variable: 'GITHUB_APP_PRIVATE_KEY_FILE',
      expected:
        'the path of a file holding the App key; this value looks like a PEM key itself, not a path (value not shown) — put the key in GITHUB_APP_PRIVATE_KEY, or its file’s path here',
    })
    return undefined
  }
  let content: string
  try {
    content = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable'
    errors.push({
      variable: 'GITHUB_APP_PRIVATE_KEY_FILE',
      expected: `a readable file holding ${PEM_KEY}; reading it failed with ${code}`,
      value: file,
    })
    return undefined
  }
  const problem = checkPrivateKey(content)
  if (problem === undefined) return normalizePrivateKey(content)
  errors.push({ variable: 'GITHUB_APP_PRIVATE_KEY_FILE', expected: `${PEM_KEY}; ${problem}`, value: file })
  return undefined
}
