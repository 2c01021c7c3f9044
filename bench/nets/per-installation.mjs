// Bench nets module: one per-installation net (`inst-tick`, scope `installation`), so a worker acting as N
// installations campaigns for N leases `inst-tick:<installation>`. Each pass makes one forge request as its
// installation (GET /installation/repositories, one repository a page) and appends one line
// `{"net","installation","slot","pid"}` to the file named by BENCH_PASS_LINES (O_APPEND: whole lines from
// every process), the passes' own account of what ran beside the ledger's. What the installations bench
// runs; its schedule and pace come from the environment (LEASECRON_NET_INST_TICK_SCHEDULE, …_TTL_MS, …_RETRY_MS).
import { appendFileSync } from 'node:fs'
import { defineLease, defineNet } from '../../dist/index.js'

const lease = defineLease('inst-tick', 'one lease per installation, for the installations bench')
const linesFile = process.env.BENCH_PASS_LINES

const net = defineNet({
  name: 'inst-tick',
  lease: lease.name,
  scope: 'installation',
  schedule: '*/5 * * * * *',
  description: 'one forge request and one line per slot',
  options: {},
  setup: () => ({}),
  term: () => async (ctx) => {
    await ctx.forge.request('GET /installation/repositories', {
      per_page: 1,
      request: { signal: ctx.signal },
    })
    if (!linesFile) return
    const line = {
      net: 'inst-tick',
      installation: ctx.installation,
      slot: ctx.slot.toISOString(),
      pid: process.pid,
    }
    appendFileSync(linesFile, `${JSON.stringify(line)}\n`)
  },
})

export default { nets: [net], leases: [lease] }
