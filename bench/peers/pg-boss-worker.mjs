// Bench only: one pg-boss 10 process of the peers scenario, set up as pg-boss's README and docs/readme
// show: `start()`, `createQueue`, `schedule(name, '* * * * *')` (one schedule per queue name, so every
// process may call it) and `work(name, handler)`; every other setting at its default (cron monitored every
// 30 s by one instance, workers polling every 2 s). pg-boss does not hand the handler the cron instant:
// the slot is left null and the scenario takes the minute the handler started in. Env: BENCH_PG_URL.
import PgBoss from 'pg-boss'
import { onStop, recordSlot, say } from './record-slot.mjs'

const boss = new PgBoss({ connectionString: process.env.BENCH_PG_URL })
boss.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
await boss.start()
await boss.createQueue('bench-tick')
await boss.schedule('bench-tick', '* * * * *')
await boss.work('bench-tick', async (jobs) => {
  for (const _job of jobs) recordSlot('pg-boss', null)
})
onStop(() => boss.stop({ graceful: true, wait: true }))
say('ready')
