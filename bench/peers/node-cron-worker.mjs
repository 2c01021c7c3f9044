// Bench only: one node-cron 4.6 process in its distributed mode with leasecron's `leaseCoordinator` (lease
// store and run ledger on one Mongo database), set up as docs/library.md ("One fire per process with
// node-cron") shows, with `distributedLease` 90 s (the page: at least the gap between fires): one task per job
// of BENCH_PEERS_JOBS, named after it (the coordinator's lease and ledger key). node-cron hands the task its
// fire instant (`context.date`): that is the slot. Env: BENCH_MONGO_URL, BENCH_MONGO_DB.
import { MongoClient } from 'mongodb'
import cron from 'node-cron'
import { leaseCoordinator, MongoRunLedger, MongoStore } from '../../dist/index.js'
import { declared, jobNames, onStop, recordSlot, say } from './record-slot.mjs'

const client = await new MongoClient(process.env.BENCH_MONGO_URL).connect()
const db = client.db(process.env.BENCH_MONGO_DB)
const coordinator = leaseCoordinator({ store: new MongoStore(db), ledger: new MongoRunLedger(db) })
const names = jobNames()
for (const [i, name] of names.entries()) {
  const task = cron.schedule(
    '* * * * *',
    (context) => recordSlot('node-cron', context.date.getTime(), name),
    {
      name,
      distributed: true,
      distributedLease: 90_000,
      runCoordinator: coordinator,
    },
  )
  task.on?.('execution:failed', (context) => say('error', { msg: String(context?.execution?.error) }))
  declared(i + 1, names.length)
}
onStop(async () => {
  await cron.shutdown?.()
  await coordinator.close()
  await client.close()
})
say('ready')
