// Bench nets module: ten trivial nets on ten leases of their own (`bench-net-1` … `bench-net-10`), each
// pass doing nothing but note the instant. What the store-load and footprint benches run: the cost of
// the election itself, with no forge or store work on top. Schedules come from the environment
// (LEASECRON_NET_BENCH_NET_<i>_SCHEDULE); the default is every second.
import { defineLease, defineNet } from '../../dist/index.js'

const leases = []
const nets = []
for (let i = 1; i <= 10; i++) {
  const lease = defineLease(`bench-net-${i}`, `bench net ${i}`)
  leases.push(lease)
  nets.push(
    defineNet({
      name: lease.name,
      lease: lease.name,
      schedule: '* * * * * *',
      description: 'does nothing',
      options: {},
      setup: () => ({}),
      term: () => async () => {},
    }),
  )
}

export default { nets, leases }
