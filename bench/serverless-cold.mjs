// Bench only: one cold function instance of `leasecron/serverless`, as a platform starts it — import the
// built entry (dist/bundle/serverless.js), build the handlers over a nets module, invoke the Lambda
// handler once with an EventBridge Scheduler event for the slot due now — then print one JSON line with
// the instants (ms since this process started, performance.now()) the import and the first answer came,
// close the runtime and exit. Arguments: NETS_MODULE NET. The footprint scenario times it from outside too.
const [file, net] = process.argv.slice(2)
if (!file || !net) {
  process.stderr.write('usage: node bench/serverless-cold.mjs NETS_MODULE NET\n')
  process.exit(64)
}
const { createServerlessHandlers } = await import('../dist/bundle/serverless.js')
const importedMs = performance.now()
const handlers = createServerlessHandlers({ config: file })
const result = await handlers.handler({ net, time: new Date().toISOString() })
const readyMs = performance.now()
const line = { event: 'serverless-ready', importedMs, readyMs, outcome: result.outcome }
process.stdout.write(`${JSON.stringify(line)}\n`)
await handlers.close()
