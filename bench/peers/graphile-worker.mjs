// Bench only: one graphile-worker 0.17 process of the peers scenario, in library mode as
// worker.graphile.org/docs/library/run and /docs/cron describe: `run()` with a task list and the crontab
// line `* * * * * bench_tick`, every other option at its default (no backfill, concurrency 1, LISTEN/NOTIFY
// with a 2 s poll as fallback). The cron payload's `_cron.ts` is the slot. Env: BENCH_PG_URL.
import { run } from 'graphile-worker'
import { onStop, recordSlot, say } from './record-slot.mjs'

const runner = await run({
  connectionString: process.env.BENCH_PG_URL,
  noHandleSignals: true,
  taskList: {
    bench_tick: async (payload) => recordSlot('graphile-worker', Date.parse(payload?._cron?.ts)),
  },
  crontab: '* * * * * bench_tick',
})
runner.events.on('pool:listen:error', ({ error }) => say('error', { msg: String(error?.message ?? error) }))
onStop(() => runner.stop())
say('ready')
