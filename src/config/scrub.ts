/**
 * The one scrubbing path for text that leaves the process: log lines (the logger's hook), everything the
 * CLI prints (its output and errors, `config`, every `--json`), the configuration's own error messages and
 * the `error` a pass records in the run ledger (which `/status`, the page and `history` then serve).
 *
 * What it removes: PEM blocks (any `-----BEGIN …-----`, through its END or, truncated, to the end of the
 * text), the values of the secret variables this process was configured with (`rememberSecrets`), URI
 * credentials (`user:password@`, a bare `token@`), the value of every `name=value` pair whose name is a
 * credential's (`isSecretParameter`: `api_key`, `sig`, `token`, `proxyPassword`, `authMechanismProperties`,
 * …), in a URI's query or in free text — the same rule the request spans' `url.full` applies —,
 * `token …`/`Bearer …` credentials, GitHub token shapes and JWTs. Its cost is linear in the text.
 *
 * Not a secret store and not a guarantee about text it is never handed: a component that writes
 * elsewhere (a file, a socket) must pass its text through `scrubSecrets` itself.
 */

import { isSecretParameter } from '../secret-parameter.js'

/**
 * Variables whose whole value is a secret, wherever it shows up (the App key; a net option marked
 * `secret` is added by the configuration that reads it). A name ending in one of SECRET_SUFFIXES counts
 * too, so a webhook secret or a token a net reads is covered without being listed.
 */
export const SECRET_VARIABLES: readonly string[] = ['GITHUB_APP_PRIVATE_KEY']
// A net's PING_URL too: whoever holds it can report for the net (config/ping-url.ts).
const SECRET_SUFFIXES = ['_SECRET', '_TOKEN', '_PASSWORD', '_PRIVATE_KEY', '_PING_URL']

/** Shorter values are not remembered: masking every "true" or "1" in a log would hide more than it saves. */
const MIN_SECRET_LENGTH = 8

/**
 * Secret values seen by this process. Process-wide on purpose: the logger, the CLI and the ledger's
 * error field all scrub through it, and none of them holds the configuration.
 */
const remembered = new Set<string>()

/** True when `name`'s value is a secret (listed, or named like one). */
export function isSecretVariable(name: string): boolean {
  return SECRET_VARIABLES.includes(name) || SECRET_SUFFIXES.some((suffix) => name.endsWith(suffix))
}

/** Remembers one secret value (and the forms it takes inside JSON and a one-line env file) for scrubbing. */
export function rememberSecret(value: string | undefined): void {
  const text = value?.trim()
  if (!text || text.length < MIN_SECRET_LENGTH) return
  remembered.add(text)
  remembered.add(JSON.stringify(text).slice(1, -1))
  remembered.add(text.replace(/\r?\n/g, '\\n'))
}

/**
 * Forgets every remembered value, as a fresh process starts. For a process that loads one configuration
 * after another and must not mask the next one's ordinary values with the last one's secrets: the test
 * suite runs many files in one process (test/support/fresh-file.ts).
 */
export function forgetSecrets(): void {
  remembered.clear()
}

/** Remembers the value of every secret variable set in `env` (and `extra`, e.g. a net's secret options). */
export function rememberSecrets(env: NodeJS.ProcessEnv, extra: readonly string[] = []): void {
  for (const [name, value] of Object.entries(env))
    if (isSecretVariable(name) || extra.includes(name)) rememberSecret(value)
}

/*
 * Every pattern below costs time linear in the text (scrub.test.ts measures it on 1 MB). A pattern that
 * begins with a repeated class starts only where a run of that class starts (the negative lookbehind):
 * tried at every character of a long run, each try re-reading the rest of it, one took quadratic time (a
 * 100 000-character pause reason blocked the worker 20 s a log line). Inner classes never overlap the
 * text that must follow them, so a failed try gives up after one read of its run.
 */

/** `scheme://user:password@` (group 1 the scheme and `://`). */
const URI_USER_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^/\s:@"'?#]*:[^/\s@"']*@/gi
/** `scheme://token@` (group 1 the scheme and `://`). */
const URI_USER_TOKEN = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^/\s:@"'?#=&]+@/gi
/** Any `name=value` (a query option, a `key=value` in an error's text); isSecretParameter judges the name. */
const NAMED_VALUE = /(?<![\w.%[\]-])([\w.%[\]-]+)=([^&;\s#"']+)/g
/** A JSON Web Token's three dot-separated base64url parts. */
const JWT = /(?<![\w-])eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/g

/** Removes secrets from free text (see the module doc for what); text without secrets comes back unchanged. */
export function scrubSecrets(text: string): string {
  let out = text
  for (const secret of remembered) if (out.includes(secret)) out = out.split(secret).join('[redacted]')
  return (
    out
      // A block cut before its END runs to the end of the text, or of the JSON string it sits in.
      .replace(/-----BEGIN [A-Z0-9 ]+-----[^"]*?(-----END [A-Z0-9 ]+-----|(?=")|$)/g, '[redacted PEM block]')
      .replace(URI_USER_PASSWORD, '$1***:***@')
      .replace(URI_USER_TOKEN, '$1***@')
      .replace(NAMED_VALUE, (pair, name: string) => (isSecretParameter(name) ? `${name}=[redacted]` : pair))
      .replace(/\b(bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]')
      .replace(/\b(gh[pousr]_|ghs_|v1\.)[A-Za-z0-9_]{16,}/g, '[redacted token]')
      .replace(JWT, '[redacted jwt]')
  )
}

/** An error's message, scrubbed: `Name: message` for an Error, the text otherwise. */
export function scrubbedErrorMessage(error: unknown): string {
  return scrubSecrets(error instanceof Error ? `${error.name}: ${error.message}` : String(error))
}
