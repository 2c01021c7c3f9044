/**
 * The forge section: the sandbox or a GitHub App (LEASECRON_FORGE and the App variables, parsed by
 * forge/forge-config.ts), and the forge cache's size.
 */
import * as z from 'zod'
import { parseDuration } from '../durations.js'
import { hasGitHubAppEnv, parseForgeEnv } from './forge-env.js'
import type { ForgeEnvIssue } from '../forge/forge-config-error.js'
import type { ConfigIssue } from './config-error.js'
import type { EnvReader } from './env-reader.js'
import { rememberSecret } from './scrub.js'
import { DEFAULT_FORGE_RESERVE, type ForgeReserve } from '../forge/installations/forge-reserve.js'
import type { ForgeChoice } from './worker-config.js'

/**
 * The forge: the sandbox when asked for, or when nothing points at GitHub; the App otherwise. Anything
 * that names GitHub (LEASECRON_FORGE=github, an App variable, GITHUB_API_URL, NODE_ENV=production) makes
 * every missing App variable an error, each named, never a silent fall-back to the sandbox.
 */
export function readForge(r: EnvReader, needsForge: boolean): ForgeChoice {
  const choice = r.value('LEASECRON_FORGE')?.trim()
  if (choice !== undefined && choice !== 'sandbox' && choice !== 'github') {
    r.problem('LEASECRON_FORGE', '`sandbox` or `github`')
    return { kind: 'sandbox', reason: 'LEASECRON_FORGE is invalid' }
  }
  if (choice === 'sandbox') return { kind: 'sandbox', reason: 'LEASECRON_FORGE=sandbox' }
  const why = githubReason(r, choice)
  if (why === undefined) return { kind: 'sandbox', reason: 'no GitHub App variables are set' }
  const parsed = parseForgeEnv(r.env)
  if (parsed.ok) {
    // The key may come from a file: its content is as secret as GITHUB_APP_PRIVATE_KEY's.
    rememberSecret(parsed.app.privateKey)
    return {
      kind: 'github',
      app: parsed.app,
      installations: parsed.installations,
      ...(parsed.config === undefined ? {} : { config: parsed.config }),
    }
  }
  const issues = parsed.errors.map((issue) => explainForgeIssue(issue, why))
  if (!needsForge) return { kind: 'unchecked', issues }
  r.issues.push(...issues)
  return { kind: 'sandbox', reason: 'the GitHub App variables are invalid' }
}

/** Why the worker must use a GitHub App, or undefined when nothing asks for one. */
function githubReason(r: EnvReader, choice: string | undefined): string | undefined {
  if (choice === 'github') return 'LEASECRON_FORGE=github'
  if (hasGitHubAppEnv(r.env)) return 'some GitHub App variables are set'
  if (r.env.NODE_ENV === 'production') return 'NODE_ENV=production'
  if (r.value('GITHUB_API_URL') !== undefined) return 'GITHUB_API_URL is set'
  return undefined
}

/** Adds why an App is expected to a missing variable's message, so the fix is plain. */
function explainForgeIssue(issue: ForgeEnvIssue, why: string): ConfigIssue {
  if (!/not set|neither is set/.test(issue.expected)) return issue
  return {
    ...issue,
    expected: `${issue.expected} (required: ${why}; the sandbox is never used silently — LEASECRON_FORGE=sandbox uses it on purpose)`,
  }
}

/**
 * LEASECRON_FORGE_RESERVE: the part of each installation's hourly REST budget the worker leaves to the
 * installation's other users — points (`500`) or a percentage of the limit (`10%`); `0` never defers.
 */
export function readForgeReserve(r: EnvReader): ForgeReserve {
  return r.parse(
    'LEASECRON_FORGE_RESERVE',
    z
      .string()
      .trim()
      .regex(/^(\d{1,7}|\d{1,2}(\.\d{1,2})?%|100%)$/)
      .transform(
        (text): ForgeReserve =>
          text.endsWith('%')
            ? { kind: 'fraction', fraction: Number(text.slice(0, -1)) / 100 }
            : { kind: 'points', points: Number(text) },
      ),
    DEFAULT_FORGE_RESERVE,
    'a number of rate-limit points to leave (e.g. `500`; `0` never defers) or a percentage of the limit (e.g. `10%`)',
  )
}

/** LEASECRON_INSTALLATIONS_REFRESH: how often `GITHUB_INSTALLATION_IDS=all` lists the App's installations. */
export function readInstallationsRefresh(r: EnvReader): number {
  return r.parse(
    'LEASECRON_INSTALLATIONS_REFRESH',
    z
      .string()
      .transform((text) => parseDuration(text.trim()))
      .refine((ms): ms is number => ms !== undefined && ms >= 1_000 && ms <= 86_400_000),
    600_000,
    'a duration with its unit from 1s to 24h (e.g. `10m`)',
  )
}

/** LEASECRON_FORGE_CACHE_MB: MiB the forge cache may hold (memory, and the shared Mongo twin); 0 = off. */
export function readForgeCacheMb(r: EnvReader): number {
  return r.parse(
    'LEASECRON_FORGE_CACHE_MB',
    z
      .string()
      .trim()
      .regex(/^\d{1,5}$/)
      .transform(Number)
      .refine((n) => n <= 65_536),
    64,
    'a whole number of MiB from 0 (off) to 65536',
  )
}
