// Bench only: one agenda 6 worker process — the peer a Mongo user would pick instead of leasecron — on
// @agendajs/mongo-backend. It defines one job, `bench-tick`, that logs `{ event: 'pass-start', at, pid }`
// as a JSON line (the same shape the leasecron bench nets log), polls every AGENDA_PROCESS_EVERY_MS, and
// locks with AGENDA_LOCK_LIFETIME_MS. With AGENDA_SCHEDULE set (one process of the ten), it also
// schedules the job `every(AGENDA_SCHEDULE)`; agenda keeps one document per recurring job name.
// Prints `{ event: 'ready' }` once started; SIGTERM stops it (agenda unlocks what it held).
import { MongoBackend } from '@agendajs/mongo-backend'
import { Agenda } from 'agenda'

const line = (fields) =>
  process.stdout.write(`${JSON.stringify({ time: Date.now(), pid: process.pid, ...fields })}\n`)
const address = process.env.AGENDA_MONGO
if (!address) {
  process.stderr.write(
    'agenda-worker: AGENDA_MONGO (a mongodb:// URL with the database as its path) is required\n',
  )
  process.exit(64)
}
const agenda = new Agenda({
  backend: new MongoBackend({ address, collection: 'agendaJobs' }),
  name: `bench-${process.pid}`,
  processEvery: Number(process.env.AGENDA_PROCESS_EVERY_MS ?? 1000),
  defaultLockLifetime: Number(process.env.AGENDA_LOCK_LIFETIME_MS ?? 600_000),
})
agenda.on('error', (error) => line({ event: 'error', msg: String(error?.message ?? error) }))
agenda.define('bench-tick', async () => {
  line({ event: 'pass-start', at: Date.now(), msg: 'agenda job start' })
})
let stopping = false
const stop = async () => {
  if (stopping) process.exit(130)
  stopping = true
  await agenda.stop().catch(() => undefined)
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
await agenda.start()
if (process.env.AGENDA_SCHEDULE) await agenda.every(process.env.AGENDA_SCHEDULE, 'bench-tick')
line({ event: 'ready', msg: 'agenda started' })
