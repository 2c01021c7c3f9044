// Bench only: what every peers-scenario process shares. `recordSlot` appends one JSON line
// `{ system, pid, slot, start }` to `$BENCH_PEERS_OUT/<system>-<pid>.jsonl` — synchronously, so a line
// written before a SIGKILL is on disk — and the scenario counts slots from these files alone, never from a
// system's own bookkeeping. `slot` is the scheduled instant (ms) when the system hands it to the handler,
// else null (the scenario then takes the minute the handler started in). `ready` prints one JSON line the
// scenario waits for. Not a logger.
import { appendFileSync } from 'node:fs'
import { join } from 'node:path'

const out = process.env.BENCH_PEERS_OUT
if (!out) {
  process.stderr.write('peers: BENCH_PEERS_OUT (the directory for the slot files) is required\n')
  process.exit(64)
}

/** Appends the handler's start for `slot` (ms, or null when the system does not say). */
export function recordSlot(system, slot) {
  const start = Date.now()
  const line = { system, pid: process.pid, slot: Number.isFinite(slot) ? slot : null, start }
  appendFileSync(join(out, `${system}-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`)
}

/** Prints `{ event }` (ready, error…) with the pid as one JSON line on stdout. */
export function say(event, fields = {}) {
  process.stdout.write(`${JSON.stringify({ time: Date.now(), pid: process.pid, event, ...fields })}\n`)
}

/** Runs `stop` once on SIGTERM/SIGINT, then exits 0 (a second signal exits at once). */
export function onStop(stop) {
  let stopping = false
  const handle = async () => {
    if (stopping) process.exit(130)
    stopping = true
    await Promise.resolve()
      .then(stop)
      .catch(() => undefined)
    process.exit(0)
  }
  process.on('SIGTERM', handle)
  process.on('SIGINT', handle)
}
