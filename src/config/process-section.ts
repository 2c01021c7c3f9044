/**
 * The process section: the worker's own settings (worker id, HTTP port and bind address, log level,
 * shutdown timeout, public URL, status page, admin token) and how many runs per net the ledger keeps.
 */
import { isIP } from 'node:net'
import * as z from 'zod'
import { MAX_TIMER_MS } from '../lease/clock.js'
import { type EnvReader, wholeMs } from './env-reader.js'
import { LOG_LEVELS, type LogLevel } from './log-level.js'
import type { WorkerConfig } from './worker-config.js'

/** The process's own settings: worker id, HTTP port and bind address, log level, shutdown timeout, public URL. */
export function readProcess(
  r: EnvReader,
): Pick<WorkerConfig, 'workerId' | 'port' | 'bindAddress' | 'logLevel' | 'shutdownTimeoutMs' | 'publicUrl'> {
  return {
    workerId: r.parse(
      'LEASECRON_WORKER_ID',
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9._-]{1,200}$/),
      undefined as string | undefined,
      'a host-like name of 1–200 characters [A-Za-z0-9._-]',
    ),
    port: r.parse(
      'PORT',
      z
        .string()
        .trim()
        .regex(/^\d{1,5}$/)
        .transform(Number)
        .refine((n) => n <= 65535),
      8080,
      'a TCP port from 0 to 65535',
    ),
    bindAddress: r.parse(
      'LEASECRON_BIND_ADDRESS',
      z
        .string()
        .trim()
        .refine((text) => text === 'localhost' || isIP(text) !== 0),
      '0.0.0.0',
      'an IP address to listen on (`0.0.0.0` every IPv4 interface, `::` every interface, `127.0.0.1` this host only, or one of its addresses) or `localhost`; a host name is not resolved',
    ),
    logLevel: r.parse('LOG_LEVEL', z.enum(LOG_LEVELS), 'info' as LogLevel, `one of ${LOG_LEVELS.join(', ')}`),
    shutdownTimeoutMs: r.parse(
      'LEASECRON_SHUTDOWN_TIMEOUT_MS',
      wholeMs(0, MAX_TIMER_MS),
      25_000,
      `a whole number of milliseconds from 0 to ${MAX_TIMER_MS}`,
    ),
    publicUrl: readPublicUrl(r),
  }
}

/**
 * PUBLIC_URL: an http(s) URL without credentials. It is printed on synthetic statuses and in errors a
 * pass records, so a `user:password@` in it would be published: refused, without echoing the value.
 */
function readPublicUrl(r: EnvReader): string | undefined {
  const raw = r.value('PUBLIC_URL')
  if (raw !== undefined && hasUrlCredentials(raw)) {
    r.issues.push({
      variable: 'PUBLIC_URL',
      expected:
        'an http(s) URL without credentials; this one carries a user or password (user:password@), which would be published on every status it links from (value not shown)',
    })
    return undefined
  }
  return r.parse(
    'PUBLIC_URL',
    z
      .string()
      .trim()
      .url()
      .refine((u) => /^https?:\/\//.test(u))
      .transform((u) => u.replace(/\/+$/, '')),
    undefined as string | undefined,
    'an http(s) URL',
  )
}

/** Whether `text` parses as a URL whose authority carries a user name or password. */
function hasUrlCredentials(text: string): boolean {
  try {
    const url = new URL(text.trim())
    return url.username !== '' || url.password !== ''
  } catch {
    return false
  }
}

/** LEASECRON_STATUS_PAGE: whether `/` serves the status page (`/status` JSON is always served). */
export function readStatusPage(r: EnvReader): boolean {
  return r.parse(
    'LEASECRON_STATUS_PAGE',
    z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
    true,
    '`true` or `false`',
  )
}

/** LEASECRON_RUN_HISTORY: how many runs per net the run ledger keeps (the holder prunes the rest). */
export function readRunHistory(r: EnvReader): number {
  return r.parse(
    'LEASECRON_RUN_HISTORY',
    z
      .string()
      .trim()
      .regex(/^\d{1,9}$/)
      .transform(Number)
      .refine((n) => n >= 1),
    1000,
    'a whole number of runs from 1 to 999999999',
  )
}

/** The shortest admin token accepted: a guessable token would open pause and run-now to anyone on the port. */
export const MIN_ADMIN_TOKEN_CHARS = 16

/**
 * What a bearer secret (LEASECRON_ADMIN_TOKEN, the serverless fetch handler's CRON_SECRET) must be, when
 * `raw` is not one; undefined when it is. Refused when shorter than MIN_ADMIN_TOKEN_CHARS or when it holds
 * whitespace (around it too) or control characters, which no `Authorization` header carries intact: such
 * a secret would refuse every request. Never names the value, only its length.
 */
export function bearerSecretProblem(raw: string): string | undefined {
  if (raw.length >= MIN_ADMIN_TOKEN_CHARS && /^[\x21-\x7e]+$/.test(raw)) return undefined
  return `a token of at least ${MIN_ADMIN_TOKEN_CHARS} printable ASCII characters without spaces (e.g. \`openssl rand -hex 32\`); this one is ${raw.length < MIN_ADMIN_TOKEN_CHARS ? `${raw.length} characters long` : 'carrying a space or a non-ASCII character'} (value not shown)`
}

/**
 * LEASECRON_ADMIN_TOKEN: the bearer token of the HTTP admin API (`POST /nets/<net>/pause|resume|run`);
 * unset, the API is off. A secret (its name ends in `_TOKEN`, scrub.ts): never echoed, even when refused
 * (bearerSecretProblem says when).
 */
export function readAdminToken(r: EnvReader): string | undefined {
  const raw = r.value('LEASECRON_ADMIN_TOKEN')
  if (raw === undefined) return undefined
  const problem = bearerSecretProblem(raw)
  if (problem) {
    r.problem('LEASECRON_ADMIN_TOKEN', problem)
    return undefined
  }
  return raw
}
