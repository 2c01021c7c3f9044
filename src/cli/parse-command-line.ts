/**
 * The command line read against the command table: which command, its operands and options, or a usage
 * error (64) that names what was wrong — an unknown command or option (with the one it most likely meant),
 * an option without its value, too many operands, or an option that belongs to another command — followed
 * by the help of the command it was given to (the overview when no command is known).
 */
import { type Command, GLOBAL_OPTIONS, OPTION_SPECS, type OptionName, type OptionValues } from './command.js'
import { belongsElsewhere, unknownCommandProblem, unknownOptionProblem } from './did-you-mean.js'
import { usage } from './help.js'
import type { Io } from './io.js'

// CommonJS exports, not an ES import: on Node 22+ an ES import of node:util builds its namespace from every
// export and so evaluates its lazy getters (worker_threads and the diff and colour helpers among them),
// 1.4 MiB of RSS every command and the worker kept (bench/NOTES.md; src/worker/http.ts does the same).
const { parseArgs } = process.getBuiltinModule('node:util')

export interface CommandLine {
  command: Command
  /** The operands after the command's name. */
  args: string[]
  values: OptionValues
}

/** The command (`run` when none is named), its operands and options; an exit code (64) when they are not usable. */
export function parseCommandLine(argv: string[], commands: readonly Command[], io: Io): CommandLine | number {
  const named = (name: string | undefined) => commands.find((c) => c.name === name)
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTION_SPECS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTION_SPECS })
  } catch (error) {
    const meant = named(firstOperand(argv))
    return usage(io, parseArgsProblem(error, argv, meant, commands), commands, meant?.name)
  }
  const [name = 'run', ...args] = parsed.positionals
  const command = named(name)
  if (!command) return usage(io, unknownCommandProblem(name, commands), commands)
  const arity = command.operands.length
  if (args.length > arity) {
    return usage(
      io,
      `${name}: unexpected argument${args.length > 1 ? 's' : ''} ${args
        .slice(arity)
        .map((r) => JSON.stringify(r))
        .join(' ')}`,
      commands,
      name,
    )
  }
  const misplaced = misplacedOption(command, parsed.values, commands)
  if (misplaced) return usage(io, misplaced, commands, name)
  return { command, args, values: parsed.values }
}

/** Names an option given to a command that does not take it, and the commands that do. */
function misplacedOption(
  command: Command,
  values: OptionValues,
  commands: readonly Command[],
): string | undefined {
  for (const option of Object.keys(OPTION_SPECS) as OptionName[]) {
    if (values[option] === undefined || GLOBAL_OPTIONS.includes(option)) continue
    if (command.options.includes(option)) continue
    return `${command.name}: ${belongsElsewhere(option, command, commands)}`
  }
  return undefined
}

/** The first operand of a command line parseArgs refused (the command's name), skipping options' values. */
function firstOperand(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!
    if (!word.startsWith('-')) return word
    const option = word.slice(2)
    if (word.startsWith('--') && Object.hasOwn(OPTION_SPECS, option)) {
      if (OPTION_SPECS[option as OptionName].type === 'string') i++
    }
  }
  return undefined
}

/**
 * parseArgs' refusal in our words: its own message for an unknown option runs on about `--` and quotes, and
 * it takes a value that starts with `-` (`--limit -3`, `--reason "-- urgent"`) for the next option.
 */
function parseArgsProblem(
  error: unknown,
  argv: readonly string[],
  command: Command | undefined,
  commands: readonly Command[],
): string {
  const { code, message } = error as { code?: string; message: string }
  const option = /'(-[^' ]*)/.exec(message)?.[1]
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option)
    return unknownOptionProblem(option, command, commands)
  if (code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' || !option) return message
  const next = argv[argv.indexOf(option) + 1]
  if (next === undefined || !next.startsWith('-') || Object.hasOwn(OPTION_SPECS, next.replace(/^--?/, '')))
    return `${option} needs a value`
  return `${option} needs a value: ${JSON.stringify(next)} starts with "-", so it was read as an option; write ${option}=${next} to give it as the value`
}
