// Bench only: one agenda 6 process (@agendajs/mongo-backend) of the peers scenario, set up as agenda's
// README shows: `define`, `start()`, then `every('* * * * *', name)` — one job document per name, so every
// process may call it; processEvery and lock lifetime at their defaults (5 s, 10 min). agenda does not hand
// the handler the slot: it is left null and the scenario takes the minute the handler started in.
// Env: BENCH_MONGO_URL (with the database as its path).
import { MongoBackend } from '@agendajs/mongo-backend'
import { Agenda } from 'agenda'
import { onStop, recordSlot, say } from './record-slot.mjs'

const agenda = new Agenda({
  backend: new MongoBackend({ address: process.env.BENCH_MONGO_URL, collection: 'agendaJobs' }),
  name: `bench-${process.pid}`,
})
agenda.on('error', (error) => say('error', { msg: String(error?.message ?? error) }))
agenda.define('bench-tick', async () => recordSlot('agenda', null))
await agenda.start()
await agenda.every('* * * * *', 'bench-tick')
onStop(() => agenda.stop())
say('ready')
