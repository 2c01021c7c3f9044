/**
 * "Did you mean" for the command line: a mistyped command (`stauts`) or option (`--jsno`) is refused with
 * the known name it most likely meant, as a mistyped `LEASECRON_*` variable is (config/typo-hints.ts, whose
 * distance this reuses). Only the wording of the refusal; the parser decides what is unknown.
 */
import { nearestName } from '../config/typo-hints.js'
import { type Command, GLOBAL_OPTIONS, OPTION_SPECS, type OptionName } from './command.js'

/**
 * How far a typo may be from the word it meant: commands and options are short words, so the variables'
 * bound (at least 3 edits) would turn `foo` into `run`; two edits catch a swapped pair (`stauts`).
 */
const nearness = (word: string) => Math.max(2, Math.floor(word.length / 3))

/** `unknown command "stauts"`, with ` — did you mean "status"?` when a command is near. */
export function unknownCommandProblem(name: string, commands: readonly Command[]): string {
  const near = nearestName(
    name,
    commands.map((c) => c.name),
    nearness(name),
  )
  return `unknown command "${name}"${near ? ` — did you mean "${near}"?` : ''}`
}

/**
 * `unknown option --jsno`, with ` — did you mean --json?` when an option is near: first among the options
 * `command` takes (and the global ones), then among every command's.
 */
export function unknownOptionProblem(option: string, command: Command | undefined): string {
  const near = option.startsWith('--') ? nearOption(option.slice(2), command) : undefined
  return `unknown option ${option}${near ? ` — did you mean --${near}?` : ''}`
}

function nearOption(typed: string, command: Command | undefined): string | undefined {
  const all = Object.keys(OPTION_SPECS) as OptionName[]
  const own = [...GLOBAL_OPTIONS, ...(command?.options ?? [])]
  return nearestName(typed, own, nearness(typed)) ?? nearestName(typed, all, nearness(typed))
}
