/**
 * The worker's logger: pino JSON, one line per event with stable fields (`lease`, `owner`, `net`, `pass`,
 * `lane`), human-readable when stdout is a terminal. Secrets are redacted twice over: known secret fields
 * by name (SECRET_KEYS), and every message and string field through the one scrubbing path (scrub.ts). No terminal
 * control character is written raw: JSON escapes C0, DEL and C1 are dropped, and every logged text (and
 * the human form) drops them all but tabs and line feeds (plain-text.ts).
 *
 * Not a log shipper: it writes to a stream and lets the platform collect it.
 */
import pino from 'pino'
import type { LogLevel } from '../config/log-level.js'
import { scrubSecrets } from '../config/scrub.js'
import { withoutEscapes } from '../plain-text.js'
import type { Logger } from '../logger.js'

// CommonJS exports, not an ES import: an ES import of node:stream evaluates its lazy getters (0.4 MiB of RSS
// on Node 24; see src/worker/http.ts).
const { Writable } = process.getBuiltinModule('node:stream')

export type { Logger, LogMethod } from '../logger.js'

/** Where log lines are written: one JSON line (or a human-readable one) per call (pino's DestinationStream). */
export interface DestinationStream {
  write(line: string): void
}

/**
 * Field names whose values are secrets whatever they hold: written as `[redacted]` at any depth the
 * scrubbing walks (scrubValue), in a line's fields and in a child's bindings alike.
 *
 * Why not pino's `redact` option, which did this by path: its redaction (@pinojs/redact 0.4) parses every
 * path again on each line and each child — about 8.5 KiB of garbage each, which a worker of 1,000 nets made
 * twice a pass (a pass's child and its first line), all of it at the turn of the minute (docs/benchmarks.md).
 * The walk below already visits every field.
 */
const SECRET_KEYS = new Set(['privateKey', 'token', 'authorization', 'password', 'mongoUri', 'jwt'])

const CENSOR = '[redacted]'

/** A logged text: scrubbed of secrets and of terminal control characters (tabs and line feeds kept). */
function clean(text: string): string {
  return withoutEscapes(scrubSecrets(text))
}

function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clean(value)
  if (depth > 4 || value === null || typeof value !== 'object') return value
  if (value instanceof Error) return serializeError(value)
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.has(k) ? CENSOR : scrubValue(v, depth + 1)
  return out
}

/** The fields of a Node system error or an HTTP error that say what failed where. */
const ERROR_FIELDS = ['code', 'errno', 'syscall', 'hostname', 'address', 'port', 'status'] as const

/**
 * An error as a log field: `type`, `message`, the fields that say what failed where (`code`, `syscall`,
 * `hostname`, `address`, `port`, `status`), the `cause` chain and an AggregateError's `errors`, every
 * string scrubbed of secrets. The top error keeps the first lines of its stack (a bug needs it); causes
 * do not. Anything that is not an Error is kept as a scrubbed value.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return scrubValue(error, 4)
  const fields = error as Error & Partial<Record<(typeof ERROR_FIELDS)[number], unknown>>
  const out: Record<string, unknown> = { type: error.name, message: clean(error.message) }
  for (const key of ERROR_FIELDS) {
    const v = fields[key]
    if (typeof v === 'string' || typeof v === 'number') out[key] = typeof v === 'string' ? clean(v) : v
  }
  if (depth < 5 && error.cause !== undefined) out.cause = serializeError(error.cause, depth + 1)
  if (depth < 5 && error instanceof AggregateError)
    out.errors = error.errors.slice(0, 5).map((e: unknown) => serializeError(e, depth + 1))
  if (depth === 0 && typeof error.stack === 'string')
    out.stack = clean(error.stack.split('\n').slice(0, 8).join('\n'))
  return out
}

export interface LoggerOptions {
  level?: LogLevel
  /** Where lines go; stdout by default, human-readable when it is a TTY. */
  destination?: DestinationStream
  /** Force (or refuse) the human format regardless of the destination. */
  pretty?: boolean
  /** Lines to stderr rather than stdout: for a command whose stdout is its answer (`once --json`). */
  toStderr?: boolean
  base?: Record<string, unknown>
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * `fields` less the entries this logger already binds with the same value. pino writes a bound field and a
 * line's field of the same name both (it does not merge them); run()'s term lines carry `lease` and
 * `owner`, which the scheduler's and `once`'s loggers already bind, so each would be written twice.
 */
function withoutBound(
  fields: Record<string, unknown>,
  bound: Record<string, unknown>,
): Record<string, unknown> {
  let kept: Record<string, unknown> | undefined
  for (const key of Object.keys(fields)) {
    if (!(key in bound) || bound[key] !== fields[key]) continue
    kept ??= { ...fields }
    delete kept[key]
  }
  return kept ?? fields
}

/** Creates the worker's root logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const out = options.toStderr ? process.stderr : process.stdout
  const pretty = options.pretty ?? (options.destination === undefined && out.isTTY === true)
  const destination =
    options.destination ??
    (pretty ? humanStream(out) : pino.destination({ fd: options.toStderr ? 2 : 1, sync: true }))
  const root = pino(
    {
      level: options.level ?? 'info',
      base: options.base ? (scrubValue(options.base) as Record<string, unknown>) : null,
      timestamp: pino.stdTimeFunctions.isoTime,
      // Errors are already serialized (and scrubbed) by the logMethod hook; this catches any that were not.
      serializers: { err: (value: unknown) => serializeError(value) },
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => scrubValue(a)) as Parameters<typeof method>
          const [first] = scrubbed
          if (isFields(first)) scrubbed[0] = withoutBound(first, this.bindings())
          return method.apply(this, scrubbed)
        },
      },
    },
    scrubbing(destination),
  )
  return withScrubbedBindings(root)
}

/**
 * `root`, whose children (and theirs: each is created from its parent) scrub their bindings as the
 * logMethod hook scrubs a line's fields: pino serializes a child's bindings when the child is made, past
 * the hook, and its formatters do not reach them.
 */
function withScrubbedBindings(root: pino.Logger): pino.Logger {
  const child = root.child
  root.child = function (this: pino.Logger, bindings, options) {
    return child.call(this, scrubValue(bindings) as typeof bindings, options)
  } as typeof child
  return root
}

/**
 * `destination` with every line scrubbed once more as written: a child's bound fields (a URL, a holder)
 * are serialized by pino without passing the logMethod hook (pino applies its bindings formatter to the
 * root only), so the written line is the one place that sees everything.
 */
function scrubbing(destination: DestinationStream): DestinationStream {
  // pino escapes C0 inside JSON strings but writes DEL and C1 (an 8-bit CSI) raw: no line carries them.
  return { write: (line: string) => destination.write(scrubSecrets(line).replace(RAW_CONTROLS, '')) }
}

/** DEL and C1: the control characters a JSON line can carry unescaped. */
const RAW_CONTROLS = /[\u007f-\u009f]/g

/** Formats pino's JSON lines as `HH:MM:SS.mmm LEVEL message key=value …` for a person at a terminal. */
function humanStream(out: NodeJS.WritableStream): DestinationStream {
  const stream: DestinationStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line) continue
        try {
          const { time, level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>
          // Decoded from JSON, a field is raw again: its escape sequences would reach the terminal.
          const rest = Object.entries(fields)
            .map(([k, v]) => `${k}=${typeof v === 'string' ? withoutEscapes(v) : JSON.stringify(v)}`)
            .join(' ')
          out.write(
            `${String(time).slice(11, 23)} ${String(level).toUpperCase().padEnd(5)} ${withoutEscapes(String(msg ?? ''))}${rest ? `  ${rest}` : ''}\n`,
          )
        } catch {
          out.write(`${line}\n`)
        }
      }
      done()
    },
  })
  return stream
}
