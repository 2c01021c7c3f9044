/**
 * The forge's configuration: which GitHub App installation to act as and where the API lives, read
 * from the environment and validated with zod at start-up.
 *
 * Not the worker's whole configuration (config/load-config.ts composes this one) and not a secret store:
 * the private key is held in memory only for Octokit, and never echoed in an error.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'
import * as z from 'zod'
import { ForgeConfigError, type ForgeEnvIssue } from './forge-config-error.js'
import {
  type InstallationSet,
  listedInstallations,
  readInstallationSet,
} from './installations/installation-set.js'

/** The App itself, whichever installation it acts as. `privateKey` is PEM with real line breaks. */
export interface ForgeAppConfig {
  appId: number
  privateKey: string
  /** Base URL without a trailing slash: `https://api.github.com`, `https://ghe.example/api/v3`, the sandbox's. */
  apiUrl: string
}

/** A validated forge configuration: the App acting as one installation. */
export interface ForgeConfig extends ForgeAppConfig {
  installationId: number
}

/**
 * The outcome of `parseForgeEnv`: the App, the installations it acts as, and `config` — the App as the
 * first listed installation (absent under `GITHUB_INSTALLATION_IDS=all`, where none is known before discovery).
 */
export type ForgeEnvResult =
  | { ok: true; app: ForgeAppConfig; installations: InstallationSet; config?: ForgeConfig }
  | { ok: false; errors: ForgeEnvIssue[] }

/** The variables that select a GitHub App; none set means "no forge configured" (the sandbox). */
export const GITHUB_APP_VARIABLES = [
  'GITHUB_APP_ID',
  'GITHUB_APP_PRIVATE_KEY',
  'GITHUB_APP_PRIVATE_KEY_FILE',
  'GITHUB_INSTALLATION_ID',
  'GITHUB_INSTALLATION_IDS',
] as const

/** The API base URL used when GITHUB_API_URL is unset. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com'

const NUMERIC_ID = 'a positive integer (digits only)'
const PEM_KEY =
  'a PEM RSA private key (PKCS#1 "BEGIN RSA PRIVATE KEY" or PKCS#8 "BEGIN PRIVATE KEY"; literal \\n allowed)'

const URL_WITH_CREDENTIALS =
  'an absolute http(s) URL without credentials; this one carries a user or password (user:password@), which would reach logs and errors — the App authenticates with its key (value not shown)'

/**
 * Whether a value meant as a path is key material: a PEM header, or line breaks (literal or real) no
 * path has. Such a value is never read as a file nor echoed.
 */
function looksLikeKeyMaterial(value: string): boolean {
  return /-----BEGIN /.test(value) || /\r|\n|\\n/.test(value)
}

/** Whether `text` parses as a URL with a user name or password in its authority. */
function hasCredentials(text: string): boolean {
  try {
    const url = new URL(text.trim())
    return url.username !== '' || url.password !== ''
  } catch {
    return false
  }
}

const idSchema = z
  .string()
  .trim()
  .regex(/^[0-9]{1,15}$/)
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n) && n > 0)

const apiUrlSchema = z
  .string()
  .trim()
  .refine((text) => {
    try {
      const url = new URL(text)
      return (
        (url.protocol === 'https:' || url.protocol === 'http:') &&
        url.search === '' &&
        url.hash === '' &&
        url.username === '' &&
        url.password === ''
      )
    } catch {
      return false
    }
  })
  .transform((text) => text.replace(/\/+$/, ''))

/** The shape of a ForgeConfig, for callers that build one without the environment. */
const forgeConfigSchema = z.object({
  appId: z.number().int().positive(),
  privateKey: z.string().min(1),
  installationId: z.number().int().positive(),
  apiUrl: apiUrlSchema,
})

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
  const errors: ForgeEnvIssue[] = []
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
    const parsed = idSchema.safeParse(raw)
    if (!parsed.success) {
      errors.push({ variable: name, expected: NUMERIC_ID, value: raw })
      return undefined
    }
    return parsed.data
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
  const apiUrl = apiUrlSchema.safeParse(rawUrl)
  if (hasCredentials(rawUrl)) {
    errors.push({ variable: 'GITHUB_API_URL', expected: URL_WITH_CREDENTIALS })
  } else if (!apiUrl.success) {
    errors.push({
      variable: 'GITHUB_API_URL',
      expected: 'an absolute http(s) URL without query or fragment',
      value: rawUrl,
    })
  }

  if (errors.length > 0 || appId === undefined || installations === undefined || privateKey === undefined) {
    return { ok: false, errors }
  }
  const app = { appId, privateKey, apiUrl: apiUrl.data as string }
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
function readKeyFile(file: string, errors: ForgeEnvIssue[]): string | undefined {
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

/**
 * Validates a ForgeConfig built in code (not from the environment), throwing ForgeConfigError naming
 * each field at fault; returns the config with the key normalized. Never includes the key in the error.
 */
export function checkForgeConfig(config: ForgeConfig, operation = 'createForge'): ForgeConfig {
  const issues: ForgeEnvIssue[] = []
  const shape = forgeConfigSchema.safeParse(config)
  if (!shape.success) {
    for (const issue of shape.error.issues) {
      const field = String(issue.path[0] ?? 'config')
      const given = Object.entries(config ?? {}).find(([k]) => k === field)?.[1]
      const secret = field === 'privateKey' || (field === 'apiUrl' && hasCredentials(String(given)))
      const value = secret ? undefined : given
      issues.push({
        variable: `config.${field}`,
        expected:
          field === 'apiUrl'
            ? 'an absolute http(s) URL without credentials, query or fragment'
            : field === 'privateKey'
              ? PEM_KEY
              : NUMERIC_ID,
        ...(value === undefined ? {} : { value: String(value) }),
      })
    }
  }
  const problem = typeof config?.privateKey === 'string' ? checkPrivateKey(config.privateKey) : undefined
  if (problem !== undefined && !issues.some((i) => i.variable === 'config.privateKey')) {
    issues.push({ variable: 'config.privateKey', expected: `${PEM_KEY}; ${problem}` })
  }
  if (issues.length > 0) throw new ForgeConfigError(operation, issues)
  return { ...config, privateKey: normalizePrivateKey(config.privateKey), apiUrl: shape.data!.apiUrl }
}

/** Turns literal `\n` sequences (keys pasted into env files) into line breaks and trims the ends. */
export function normalizePrivateKey(pem: string): string {
  return `${pem.replace(/\\n/g, '\n').replace(/\r\n/g, '\n').trim()}\n`
}

/** Why `pem` is not a usable App key, in words that never quote it; undefined when it is one. */
function checkPrivateKey(pem: string): string | undefined {
  const text = normalizePrivateKey(pem)
  const pkcs1 = text.startsWith('-----BEGIN RSA PRIVATE KEY-----')
  const pkcs8 = text.startsWith('-----BEGIN PRIVATE KEY-----')
  if (!pkcs1 && !pkcs8) return 'the value does not start with a PKCS#1 or PKCS#8 PEM header'
  try {
    const key = createPrivateKey({ key: text, format: 'pem' })
    if (key.asymmetricKeyType !== 'rsa') return `the key is ${key.asymmetricKeyType ?? 'not'} an RSA key`
    // A damaged body can still parse; a signature its own public half cannot verify catches that.
    const probe = Buffer.from('leasecron forge key check')
    const signature = sign('sha256', probe, key)
    if (!verify('sha256', probe, createPublicKey(key), signature))
      return 'the key is damaged (its parts do not match)'
  } catch {
    return 'the PEM body does not decode to a private key'
  }
  return undefined
}
