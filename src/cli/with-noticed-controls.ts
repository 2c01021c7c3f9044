/**
 * The database of a command that writes a net's controls (`pause`, `resume`, `backfill --cancel`):
 * withDatabase, with the controls wrapped so that each write leaves a notice on the net's lease
 * (noticing-controls.ts) and its holder hears it at its next renewal. Without MONGO_URI the command says
 * that nothing is shared (a CLI cannot reach a worker's own memory).
 *
 * What it is not: the write itself, nor its output; each command keeps those.
 */
import type { NetConfig, WorkerConfig } from '../config/worker-config.js'
import type { NetControlStore } from '../control/net-control-store.js'
import type { OnBadDocument } from '../store-call/bad-document.js'
import { noticingControls } from '../worker/noticing-controls.js'
import { EXIT } from './exit-codes.js'
import type { Io } from './io.js'
import { operatorNotice } from './operator-notice.js'
import { withDatabase } from './with-database.js'

/** Which command, as withDatabase names it, and as the no-MONGO_URI message names it. */
export interface ControlCommand {
  command: 'pause' | 'resume' | 'backfill'
  said: string
}

/**
 * Runs `write` on `net`'s noticing controls, bounded by `signal`; resolves to its exit code (0 when it
 * returns none), 1 after saying the store did not answer, or 1 after saying MONGO_URI is not set.
 */
export function withNoticedControls(
  { command, said }: ControlCommand,
  context: {
    config: WorkerConfig
    io: Io
    net: NetConfig
    onBadDocument?: OnBadDocument
  },
  write: (controls: NetControlStore, signal: AbortSignal) => Promise<number | undefined>,
): Promise<number> {
  const { config, io, net } = context
  return withDatabase(
    command,
    config,
    io,
    context.onBadDocument ?? (() => undefined),
    ({ controls, store }, signal) =>
      write(
        noticingControls(
          controls,
          operatorNotice(store, net, (line) => io.err(line)),
        ),
        signal,
      ),
    () => noSharedStore(said, io),
  )
}

/** Without MONGO_URI nothing is shared: a CLI cannot reach a worker's own memory. */
function noSharedStore(command: string, io: Io): number {
  io.err(
    `leasecron ${command}: no MONGO_URI: each worker keeps its nets' controls in its own memory, which this process cannot reach; set MONGO_URI (shared by the workers), or use the worker's HTTP API`,
  )
  return EXIT.failure
}
