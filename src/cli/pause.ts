/**
 * `leasecron pause <net> [--for D | --until ISO] [--reason TEXT] [--by NAME] [--abort] [--json]`: pauses
 * the net in the shared store (MONGO_URI). Whichever replica holds its lease reads it at its next tick
 * and records the slots due `paused`; with `--abort` it also ends the pass in flight (once it hears of it
 * at its next renewal: the notice this write leaves on the lease). Without MONGO_URI each worker keeps
 * its controls in its own process: nothing to write.
 */
import { pauseNet } from '../control/control-actions.js'
import { describePause } from '../control/net-control-store.js'
import type { CommandContext } from './command.js'
import { author, pauseEnd, pauseTimes } from './control-options.js'
import { EXIT } from './exit-codes.js'
import { findNet } from './find-net.js'
import { undiscoveredInstallationNow } from './undiscovered-installation.js'
import { withNoticedControls } from './with-noticed-controls.js'

/**
 * Pauses the net; exit 0, 64 for an unknown net, a bad option or (under GITHUB_INSTALLATION_IDS=all) an
 * installation the App does not list, 1 when the store does not answer.
 */
export async function pauseCommand({ args, values, config, io }: CommandContext): Promise<number> {
  const net = findNet('pause', args[0], config, io, values.config)
  if (!net) return EXIT.usage
  const now = new Date()
  const name = net.definition.name
  // Checked before connecting, so a bad value is a usage error at once; pauseNet checks the same again.
  const until = pauseEnd(name, values, now)
  if (!until.ok) {
    io.err(`leasecron pause: ${until.expected}`)
    return EXIT.usage
  }
  const refused = await undiscoveredInstallationNow('pause', net, config, (line) => io.err(line))
  if (refused !== undefined) {
    io.err(refused)
    return EXIT.usage
  }
  const input = { ...author(values), ...pauseTimes(values), abort: values.abort === true }
  return withNoticedControls(
    { command: 'pause', said: 'pause' },
    { config, io, net, onBadDocument: ignoreBad },
    async (noticed, signal) => {
      const { pause } = await pauseNet(noticed, name, input, now, { signal })
      if (values.json) io.out(JSON.stringify({ net: name, paused: pause }))
      else {
        io.out(`${name}: ${describePause(pause)}`)
        io.out(
          `the replica holding its lease records the slots due "paused" from its next tick${pause.abort ? ', and aborts the pass in flight' : ''}`,
        )
      }
      return undefined
    },
  )
}

/** A malformed control document is read as no controls; the write goes on. */
function ignoreBad(): void {}
