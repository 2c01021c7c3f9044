// Bench only: a worker with the election turned off — every replica runs every pass of every net, as
// without an election (docs/decisions/0001). It takes the nets module as its one argument (a `{ nets, leases? }` default export, like
// `leasecron run --config`), builds `createWorker({ nets, leases, unelected: true })` from the built dist/
// and stops on SIGTERM/SIGINT. Not something a deployment can switch on: there is no environment flag.
import { pathToFileURL } from 'node:url'
import { createWorker } from '../dist/index.js'

const file = process.argv[2]
if (!file) {
  process.stderr.write('usage: node bench/unelected-worker.mjs NETS_MODULE\n')
  process.exit(64)
}
const { default: config } = await import(pathToFileURL(file).href)
const worker = createWorker({ nets: config.nets, leases: config.leases, unelected: true })
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
