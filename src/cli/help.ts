/**
 * The help, derived from the command table: the overview lists each command's operands and summary,
 * `help <command>` and `<command> --help` print its entry's help, and a usage error shows the help of the
 * command it was meant for. Takes the table as an argument, so that the table may use it.
 */
import { loadWorkerFile } from '../config/load-config-file.js'
import type { Command } from './command.js'
import { unknownCommandProblem } from './did-you-mean.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { localConfigHint } from './local-config-hint.js'

/** The overview: every command of `commands`, in the table's order. */
export function overview(commands: readonly Command[]): string {
  const lines = commands.map((c) => {
    const [first, ...more] = c.summary.split('\n')
    const synopsis = [c.name, ...c.operands].join(' ')
    return [`  ${synopsis.padEnd(14)} ${first}`, ...more.map((m) => `${' '.repeat(17)}${m}`)].join('\n')
  })
  return `leasecron — periodic idempotent nets on cron schedules, one elected replica per net

Usage: leasecron [command] [--config FILE] [--help] [--version]

Commands:
${lines.join('\n')}

Options:
  --config FILE  a .ts/.mts/.js/.mjs module whose default export is { nets, leases? }
                 (default: the built-in nets, the package's own worker.config.js)
  --help         help for a command
  --version      print the version

Configuration comes from the environment: every variable is in docs/configuration.md, and
"leasecron config" prints what the worker would use.`
}

/** The help of `topic` (a command's name, or `main` for the overview); undefined for an unknown name. */
function helpText(topic: string, commands: readonly Command[]): string | undefined {
  if (topic === 'main') return overview(commands)
  return commands.find((c) => c.name === topic)?.help
}

/** Prints the help of `topic` (exit 0), or says the command is unknown (exit 64). */
export async function printHelp(
  io: Io,
  topic: string,
  configPath: string | undefined,
  commands: readonly Command[],
): Promise<number> {
  const text = helpText(topic, commands)
  if (text === undefined) return usage(io, unknownCommandProblem(topic, commands), commands)
  const more = commands.find((c) => c.name === topic)?.moreHelp
  io.out(`${text}${more ? await more(configPath) : ''}`)
  return EXIT.ok
}

/** Says what was wrong (exit 64), then the help of the command it was meant for, else the overview. */
export function usage(io: Io, problem: string, commands: readonly Command[], topic = 'main'): number {
  io.err(`leasecron: ${problem}\n\n${helpText(topic, commands) ?? overview(commands)}`)
  return EXIT.usage
}

/**
 * `once --help`'s list of the nets the configuration module declares (empty when it cannot load), with
 * the `--config` hint when a worker.config.* in the working directory is not the one listed.
 */
export async function netList(configPath: string | undefined): Promise<string> {
  try {
    const file = await loadWorkerFile(configPath)
    const hint = localConfigHint(configPath)
    return `\n\nNets:\n${file.nets.map((n) => `  ${n.name.padEnd(22)} ${n.schedule.padEnd(14)} ${n.description}`).join('\n')}${hint ? `\n(${hint})` : ''}`
  } catch (error) {
    return `\n\n(the nets could not be listed: ${(error as Error).message})`
  }
}
