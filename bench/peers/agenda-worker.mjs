// Bench only: one agenda 6 process (@agendajs/mongo-backend) of the peers scenarios, set up as agenda's
// README shows: `define`, `start()`, then, for the one job, `every('* * * * *', name)` — one job document
// per name, so every process may call it. For the jobs of BENCH_PEERS_JOBS (more than one), the README's
// way to keep many jobs of one definition: one `define('bench-tick')` and, per job, a job document
// `create('bench-tick', { job }).unique({ 'data.job': job }, { insertOnly: true }).repeatEvery('* * * * *',
// { skipImmediate: true })` — a thousand names would be a thousand definitions, each polled by its own
// lock query every `processEvery`. processEvery and lock lifetime at their defaults (5 s, 10 min). agenda
// does not hand the handler the slot: it is left null and the scenario takes the minute the handler
// started in. Env: BENCH_MONGO_URL (with the database as its path).
import { MongoBackend } from '@agendajs/mongo-backend'
import { Agenda } from 'agenda'
import { declared, jobNames, onStop, recordSlot, say } from './record-slot.mjs'

const agenda = new Agenda({
  backend: new MongoBackend({ address: process.env.BENCH_MONGO_URL, collection: 'agendaJobs' }),
  name: `bench-${process.pid}`,
})
agenda.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
const names = jobNames()
agenda.define('bench-tick', async (job) => recordSlot('agenda', null, job.attrs.data?.job ?? names[0]))
await agenda.start()
if (names.length === 1) await agenda.every('* * * * *', 'bench-tick')
else
  for (const [i, name] of names.entries()) {
    await agenda
      .create('bench-tick', { job: name })
      .unique({ 'data.job': name }, { insertOnly: true })
      .repeatEvery('* * * * *', { skipImmediate: true })
      .save()
    declared(i + 1, names.length)
  }
onStop(() => agenda.stop())
say('ready')
