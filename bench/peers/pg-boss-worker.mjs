// Bench only: one pg-boss 10 process of the peers scenarios, set up as pg-boss's README and docs/readme
// show: `start()`, then for each job of BENCH_PEERS_JOBS `createQueue`, `schedule(name, '* * * * *')` and
// `work(name, handler)` — pg-boss 10 keeps one schedule per queue (the schedule's key is the queue's name),
// so N schedules are N queues, each worked by its own poller in every process. Every other setting at its
// default (cron monitored every 30 s by one instance, workers polling every 2 s). pg-boss does not hand the
// handler the cron instant: the slot is left null and the scenario takes the minute the handler started in.
// Env: BENCH_PG_URL.
import PgBoss from 'pg-boss'
import { declared, jobNames, onStop, recordSlot, say } from './record-slot.mjs'

const boss = new PgBoss({ connectionString: process.env.BENCH_PG_URL })
boss.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
await boss.start()
const names = jobNames()
for (const [i, name] of names.entries()) {
  await boss.createQueue(name)
  await boss.schedule(name, '* * * * *')
  await boss.work(name, async (jobs) => {
    for (const job of jobs) recordSlot('pg-boss', null, job.name)
  })
  declared(i + 1, names.length)
}
onStop(() => boss.stop({ graceful: true, wait: true }))
say('ready')
