/**
 * "Did you mean" for the command line: a mistyped command (`stauts`) or option (`--jsno`) is refused with
 * the known name it most likely meant, as a mistyped `LEASECRON_*` variable is (config/typo-hints.ts, whose
 * distance this reuses). Only the wording of the refusal; the parser decides what is unknown.
 */
import { nearestName } from '../config/nearest-name.js'
import { type Command, GLOBAL_OPTIONS, OPTION_SPECS, type OptionName } from './command.js'

/**
 * How far a typo may be from the word it meant: commands and options are short words, so the variables'
 * bound (at least 3 edits) would turn `foo` into `run`; two edits catch a swapped pair (`stauts`).
 */
const nearness = (word: string) => Math.max(2, Math.floor(word.length / 3))

/**
 * What a command reads instead of an option that belongs to another command, where a newcomer is likely
 * to reach for it: `leasecron run --port 8081` means the worker's HTTP port, which is a variable.
 */
const READ_INSTEAD: Partial<Record<OptionName, string>> = {
  port: 'the worker’s HTTP port is the PORT variable: PORT=8081 leasecron run',
}

/** `unknown command "stauts"`, with ` — did you mean "status"?` when a command is near. */
export function unknownCommandProblem(name: string, commands: readonly Command[]): string {
  // `leasecron version` (as git and docker spell it): the global option, written as a command.
  if ((GLOBAL_OPTIONS as readonly string[]).includes(name) && !commands.some((c) => c.name === name))
    return `unknown command "${name}" — did you mean --${name}?`
  const near = nearestName(
    name,
    commands.map((c) => c.name),
    nearness(name),
  )
  return `unknown command "${name}"${near ? ` — did you mean "${near}"?` : ''}`
}

/**
 * `unknown option --jsno`, with ` — did you mean --json?` when an option `command` takes (or a global one)
 * is near; when only another command's option is near, it says whose option that is rather than suggest
 * one this command would refuse next (`run --prot`: --port is the sandbox command's).
 */
export function unknownOptionProblem(
  option: string,
  command: Command | undefined,
  commands: readonly Command[] = [],
): string {
  if (!option.startsWith('--')) return `unknown option ${option}`
  const typed = option.slice(2)
  const own = nearestName(typed, [...GLOBAL_OPTIONS, ...(command?.options ?? [])], nearness(typed))
  if (own) return `unknown option ${option} — did you mean --${own}?`
  const all = Object.keys(OPTION_SPECS) as OptionName[]
  const other = nearestName(typed, all, nearness(typed)) as OptionName | undefined
  if (!other) return `unknown option ${option}`
  if (!command) return `unknown option ${option} — did you mean --${other}?`
  return `unknown option ${option} — ${belongsElsewhere(other, command, commands, ` (not to ${command.name})`)}`
}

/**
 * `--port belongs to the sandbox command`, followed by what `command` reads instead where there is such a
 * thing: the refusal of an option `command` does not take.
 */
export function belongsElsewhere(
  option: OptionName,
  command: Command,
  commands: readonly Command[],
  aside = '',
): string {
  const owners = commands.filter((c) => c.options.includes(option)).map((c) => c.name)
  const whose =
    owners.length > 0
      ? `--${option} belongs to the ${spokenList(owners)} command${owners.length > 1 ? 's' : ''}`
      : `--${option} belongs to no command`
  const instead = command.name === 'run' || command.name === 'once' ? READ_INSTEAD[option] : undefined
  return `${whose}${aside}${instead ? `; ${instead}` : ''}`
}

/** `a`, `a and b`, `a, b and c`. */
function spokenList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`
}
