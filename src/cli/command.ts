/**
 * What a command is, as the one command table (commands.ts) lists it: its name, operands, summary,
 * options, help and handler. Parsing (parse-command-line.ts), help (help.ts) and dispatch (cli.ts) are
 * derived from that table; nothing else names a command.
 */
import type { WorkerFileConfig } from '../config/load-config-file.js'
import type { WorkerConfig } from '../config/worker-config.js'
import type { Io } from './io.js'

/** Every option the command line takes, as node:util's parseArgs reads it. */
export const OPTION_SPECS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  config: { type: 'string' },
  port: { type: 'string' },
  'env-out': { type: 'string' },
  slot: { type: 'string' },
  limit: { type: 'string' },
  installation: { type: 'string' },
  installations: { type: 'string' },
  json: { type: 'boolean' },
  for: { type: 'string' },
  until: { type: 'string' },
  reason: { type: 'string' },
  by: { type: 'string' },
  abort: { type: 'boolean' },
  'catch-up': { type: 'boolean' },
  now: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean' },
  cancel: { type: 'boolean' },
} as const

export type OptionName = keyof typeof OPTION_SPECS

/** Options every command takes; the others belong to the commands whose table entry lists them. */
export const GLOBAL_OPTIONS: readonly OptionName[] = ['help', 'version', 'config']

/** The parsed options: a string option's text, a boolean option's presence. */
export type OptionValues = {
  [K in OptionName]?: (typeof OPTION_SPECS)[K]['type'] extends 'boolean' ? boolean : string
}

/** What a command that needs nothing loaded (help) runs with. */
export interface BareContext {
  /** The operands after the command's name (never more than it declares). */
  args: readonly string[]
  values: OptionValues
  io: Io
}

/** What a command runs with once the configuration module and the environment have been accepted. */
export interface CommandContext extends BareContext {
  file: WorkerFileConfig
  config: WorkerConfig
}

interface CommandEntry {
  name: string
  /** Its operands as the help writes them (`<net>`, `[command]`): how many it takes. */
  operands: readonly string[]
  /** The overview's line (a second line continues it). */
  summary: string
  /** The options it takes besides the global ones. */
  options: readonly OptionName[]
  /** Its `--help`. */
  help: string
  /** More help computed when asked (the nets `once` can run), appended to `help`. */
  moreHelp?: (configPath: string | undefined) => Promise<string>
}

/**
 * One command. `needs` says what is loaded before its handler runs: nothing; the configuration (the App
 * variables' problems are kept, not fatal: the command uses no forge); or the configuration with a
 * usable forge. The handler imports its own module when it runs, so a process loads only its command's.
 */
export type Command = CommandEntry &
  (
    | { needs: 'nothing'; handler: (context: BareContext) => Promise<number> }
    | { needs: 'config' | 'forge'; handler: (context: CommandContext) => Promise<number> }
  )
