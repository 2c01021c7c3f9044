/**
 * The forge's configuration: which GitHub App installation to act as and where the API lives, its check
 * when built in code (`checkForgeConfig`), and the rules an id, a key and an API URL must meet, which
 * config/forge-env.ts applies to the environment.
 *
 * Not the reading of the environment (config/forge-env.ts) and not a secret store: the private key is held
 * in memory only for Octokit, and never echoed in an error.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto'
import * as z from 'zod'
import { ForgeConfigError, type ForgeEnvIssue } from './forge-config-error.js'

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

/** The API base URL used when GITHUB_API_URL is unset. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com'

/** What an App or installation id must be, as an issue says it. */
export const NUMERIC_ID = 'a positive integer (digits only)'
/** What an App key must be, as an issue says it. */
export const PEM_KEY =
  'a PEM RSA private key (PKCS#1 "BEGIN RSA PRIVATE KEY" or PKCS#8 "BEGIN PRIVATE KEY"; literal \\n allowed)'

/** Whether `text` parses as a URL with a user name or password in its authority. */
export function hasCredentials(text: string): boolean {
  try {
    const url = new URL(text.trim())
    return url.username !== '' || url.password !== ''
  } catch {
    return false
  }
}

/** An App or installation id: digits only, a safe positive integer. */
const idSchema = z
  .string()
  .trim()
  .regex(/^[0-9]{1,15}$/)
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n) && n > 0)

/** An absolute http(s) API base URL without credentials, query or fragment; trailing slashes dropped. */
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

/**
 * `raw` as an App or installation id (digits only, a safe positive integer), or undefined. A function, not
 * the zod schema itself: the shipped declarations must not name zod, which a consumer does not install.
 */
export function parseForgeId(raw: string): number | undefined {
  const parsed = idSchema.safeParse(raw)
  return parsed.success ? parsed.data : undefined
}

/** `raw` as an API base URL (absolute http(s), no credentials, query or fragment; no trailing slash), or undefined. */
export function parseApiUrl(raw: string): string | undefined {
  const parsed = apiUrlSchema.safeParse(raw)
  return parsed.success ? parsed.data : undefined
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
export function checkPrivateKey(pem: string): string | undefined {
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
