// Bench only: one BullMQ 6 process of the peers scenarios, set up as docs.bullmq.io/guide/job-schedulers
// shows: every process upserts the same job schedulers (`upsertJobScheduler`, idempotent by id, cron
// `* * * * *`; one per job of BENCH_PEERS_JOBS, the job's name as the scheduler's id and the job's name)
// and runs one Worker on the queue; connections with `maxRetriesPerRequest: null`
// (docs.bullmq.io/guide/going-to-production). A scheduler's job id is `repeat:<id>:<due ms>`, which gives
// the slot. Env: BENCH_REDIS_PORT.
import { Queue, Worker } from 'bullmq'
import { declared, jobNames, onStop, recordSlot, say } from './record-slot.mjs'

const connection = {
  host: '127.0.0.1',
  port: Number(process.env.BENCH_REDIS_PORT),
  maxRetriesPerRequest: null,
}
const queue = new Queue('bench-peers', { connection })
queue.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
const names = jobNames()
for (const [i, name] of names.entries()) {
  await queue.upsertJobScheduler(name, { pattern: '* * * * *' }, { name })
  declared(i + 1, names.length)
}
const dueOf = (id) => Number(/:(\d+)$/.exec(String(id))?.[1])
const worker = new Worker('bench-peers', async (job) => recordSlot('bullmq', dueOf(job.id), job.name), {
  connection,
})
worker.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
onStop(async () => {
  await worker.close()
  await queue.close()
})
say('ready')
