// Bench nets module for the peers scenario: one net, `bench-tick`, every minute (`* * * * *`), pacing and
// CATCH_UP at their defaults (TTL 3 min, retry 1 min, `latest`), whose pass records its slot with
// bench/peers/record-slot.mjs under BENCH_PEERS_SYSTEM (`leasecron` by default; the scenario's CATCH_UP=all
// variant names itself apart). No forge request, no store work beyond the lease and the run ledger.
import { defineLease, defineNet } from '../../dist/index.js'
import { recordSlot } from '../peers/record-slot.mjs'

const lease = defineLease('bench-tick', 'bench peers net')
const tick = defineNet({
  name: lease.name,
  lease: lease.name,
  schedule: '* * * * *',
  description: 'records its slot',
  options: {},
  setup: () => ({}),
  term: () => async (ctx) => {
    recordSlot(process.env.BENCH_PEERS_SYSTEM ?? 'leasecron', ctx.slot.getTime())
  },
})

export default { nets: [tick], leases: [lease] }
