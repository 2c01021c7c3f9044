// Bench nets module for the peers scenarios: one net per job of BENCH_PEERS_JOBS (one, `bench-tick`, unless
// set; else `bench-tick-0001` …), each on its own lease, every minute (`* * * * *`), pacing and CATCH_UP at
// their defaults (for a minute schedule TTL 30 s and retry 30 s, docs/decisions/0005; `latest`), whose pass
// records its slot with bench/peers/record-slot.mjs under BENCH_PEERS_SYSTEM (`leasecron` by default; the
// peers scenario's CATCH_UP=all variant names itself apart). No forge request, no store work beyond the
// lease and the run ledger.
import { defineLease, defineNet } from '../../dist/index.js'
import { jobNames, recordSlot } from '../peers/record-slot.mjs'

const system = process.env.BENCH_PEERS_SYSTEM ?? 'leasecron'
const leases = jobNames().map((name) => defineLease(name, 'bench peers net'))
const nets = leases.map((lease) =>
  defineNet({
    name: lease.name,
    lease: lease.name,
    schedule: '* * * * *',
    description: 'records its slot',
    options: {},
    setup: () => ({}),
    term: () => async (ctx) => {
      recordSlot(system, ctx.slot.getTime(), lease.name)
    },
  }),
)

export default { nets, leases }
