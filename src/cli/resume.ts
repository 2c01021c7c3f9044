/**
 * `leasecron resume <net> [--catch-up] [--by NAME] [--reason TEXT] [--json]`: lifts the net's pause in
 * the shared store. The slots recorded `paused` stay so, unless `--catch-up` asks the holder to run them
 * (oldest first, at most 20, once it hears of it at its next renewal). A net that is not paused is left
 * as it is.
 */
import { resumeNet } from '../control/control-actions.js'
import { describePause } from '../control/net-control-store.js'
import type { CommandContext } from './command.js'
import { author } from './control-options.js'
import { EXIT } from './exit-codes.js'
import { findNet } from './find-net.js'
import { undiscoveredInstallationNow } from './undiscovered-installation.js'
import { withNoticedControls } from './with-noticed-controls.js'

/**
 * Resumes the net; exit 0 (also when it was not paused), 64 for an unknown net or (under
 * GITHUB_INSTALLATION_IDS=all) an installation the App does not list, 1 when the store does not answer.
 */
export async function resumeCommand({ args, values, config, io }: CommandContext): Promise<number> {
  const net = findNet('resume', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  const refused = await undiscoveredInstallationNow('resume', net, config, (line) => io.err(line))
  if (refused !== undefined) {
    io.err(refused)
    return EXIT.usage
  }
  const name = net.definition.name
  const input = { ...author(values), catchUp: values['catch-up'] === true }
  return withNoticedControls(
    { command: 'resume', said: 'resume' },
    { config, io, net },
    async (noticed, signal) => {
      const { pause: lifted } = await resumeNet(noticed, name, input, new Date(), { signal })
      if (values.json)
        io.out(JSON.stringify({ net: name, resumed: lifted !== undefined, lifted: lifted ?? null }))
      else if (!lifted) io.out(`${name}: not paused; nothing changed`)
      else {
        io.out(`${name}: resumed (was ${describePause(lifted)})`)
        io.out(
          input.catchUp
            ? 'the replica holding its lease runs the slots recorded "paused", oldest first (at most 20)'
            : 'the slots recorded "paused" stay so; resume --catch-up would have run them',
        )
      }
      return undefined
    },
  )
}
