// Bench only: a worker without a shared election — every replica runs every pass of every net, as
// without an election (docs/decisions/0001). It takes the nets module as its one argument (a
// `{ nets, leases? }` default export, like `leasecron run --config`) and stops on SIGTERM/SIGINT.
//
// It is the shipped worker (dist/src, tsc's build) with three parts of its runtime kept to this process:
// an in-memory lease store, which elects this process for every net at once and never hands a lease to
// another replica; an in-memory run ledger, so no other replica's claim skips a slot here; and in-memory
// controls (no pause or run request reaches it). Everything else is the configured runtime: the nets'
// stores and the forge cache in the shared Mongo, the forge. The clock guard and the fair share are off:
// there is no shared lease for them to guard. The product has no switch for this; the bench builds it.
import { pathToFileURL } from 'node:url'
import { MemoryNetControlStore } from '../dist/src/control/memory-net-control-store.js'
import { MemoryStore } from '../dist/src/lease/memory-store.js'
import { MemoryRunLedger } from '../dist/src/runs/memory-run-ledger.js'
import { openRuntime } from '../dist/src/worker/runtime.js'
import { assembleWorker } from '../dist/src/worker/worker.js'
import { setUpWorker } from '../dist/src/worker/worker-setup.js'

const file = process.argv[2]
if (!file) {
  process.stderr.write('usage: node bench/unelected-worker.mjs NETS_MODULE\n')
  process.exit(64)
}
const { default: config } = await import(pathToFileURL(file).href)
const options = {
  nets: config.nets,
  leases: config.leases,
  env: { ...process.env, LEASECRON_CLOCK_GUARD: 'off', LEASECRON_FAIR_SHARE: 'off' },
}
/** The configured runtime, with the lease store, the ledger and the controls this process's own. */
const openOwnRuntime = async (runtimeOptions) => ({
  ...(await openRuntime(runtimeOptions)),
  store: new MemoryStore(),
  ledger: new MemoryRunLedger(),
  controls: new MemoryNetControlStore(),
})
const worker = assembleWorker(options, setUpWorker(options), openOwnRuntime)
let stopping = false
const stop = async () => {
  if (stopping) process.exit(130)
  stopping = true
  await worker.stop()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
await worker.start()
