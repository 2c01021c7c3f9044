// Bench only: one graphile-worker 0.17 process of the peers scenarios, in library mode as
// worker.graphile.org/docs/library/run and /docs/cron describe: `run()` with a task list and a crontab —
// `* * * * * bench_tick` for the one job, or one line per job of BENCH_PEERS_JOBS, each the same task with
// its own identifier and payload (`* * * * * bench_tick ?id=bench-tick-0001 {"job":"bench-tick-0001"}`) —
// every other option at its default (no backfill, concurrency 1, LISTEN/NOTIFY with a 2 s poll as
// fallback). The cron payload's `_cron.ts` is the slot. Env: BENCH_PG_URL.
import { run } from 'graphile-worker'
import { declared, jobNames, onStop, recordSlot, say } from './record-slot.mjs'

const names = jobNames()
const crontab =
  names.length === 1
    ? '* * * * * bench_tick'
    : names.map((name) => `* * * * * bench_tick ?id=${name} ${JSON.stringify({ job: name })}`).join('\n')
const runner = await run({
  connectionString: process.env.BENCH_PG_URL,
  noHandleSignals: true,
  taskList: {
    bench_tick: async (payload) =>
      recordSlot('graphile-worker', Date.parse(payload?._cron?.ts), payload?.job ?? names[0]),
  },
  crontab,
})
runner.events.on('pool:listen:error', ({ error }) => say('error', { msg: String(error?.message ?? error) }))
onStop(() => runner.stop())
declared(names.length, names.length)
say('ready')
