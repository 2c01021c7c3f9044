// Bench only: what every peers-scenario process shares. `recordSlot` appends one JSON line
// `{ system, pid, slot, start, job }` to `$BENCH_PEERS_OUT/<system>-<pid>.jsonl` — synchronously, so a line
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

/**
 * The real wall clock (ms), whatever faketime tells this process now: the process's start instant (read
 * before any skew, which the scenario only applies later) plus the monotonic clock, which faketime leaves
 * alone (FAKETIME_DONT_FAKE_MONOTONIC). A skewed process's start is then still measured on the bench's clock.
 */
const realNow = () => Math.round(performance.timeOrigin + performance.now())

/**
 * Appends the handler's start for `slot` (ms, or null when the system does not say) of `job` (one of
 * `jobNames()`; a line without it, as older lines are, is the one job `bench-tick`).
 */
export function recordSlot(system, slot, job) {
  const start = realNow()
  const line = { system, pid: process.pid, slot: Number.isFinite(slot) ? slot : null, start }
  if (typeof job === 'string') line.job = job
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

/**
 * The jobs this process declares: BENCH_PEERS_JOBS of them (1 unless set: the peers scenario's one job,
 * `bench-tick`, named as it always was), else `bench-tick-0001` … (the thousand-schedules scenario).
 * Exits 64 on a count that is not a whole number ≥ 1, as a bad BENCH_PEERS_OUT does.
 */
export function jobNames() {
  const count = Number(process.env.BENCH_PEERS_JOBS ?? 1)
  if (!Number.isInteger(count) || count < 1) {
    process.stderr.write(
      `peers: BENCH_PEERS_JOBS must be a whole number ≥ 1, got ${process.env.BENCH_PEERS_JOBS}\n`,
    )
    process.exit(64)
  }
  if (count === 1) return ['bench-tick']
  const width = Math.max(4, String(count).length)
  return Array.from({ length: count }, (_, i) => `bench-tick-${String(i + 1).padStart(width, '0')}`)
}

/**
 * Says `declared` after every hundredth job a process declared, and after its last: where a system stops
 * before it is ready, the scenario reports how far its declarations got.
 */
export function declared(done, of) {
  if (done % 100 === 0 || done === of) say('declared', { jobs: done, of })
}
