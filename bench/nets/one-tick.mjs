// Bench nets module: one trivial net (`bench-tick`, every two seconds by default) whose pass logs
// `{ event: 'pass-start', at }` — leasecron's side of the agenda comparison: executions per tick, Mongo
// operations, takeover. No forge request, no store work.
import { defineLease, defineNet } from '../../dist/index.js'

const lease = defineLease('bench-tick', 'bench tick net')
const tick = defineNet({
  name: lease.name,
  lease: lease.name,
  schedule: '*/2 * * * * *',
  description: 'logs its pass start',
  options: {},
  setup: () => ({}),
  term: () => async (ctx) => {
    ctx.log.info({ event: 'pass-start', at: Date.now(), pass: ctx.pass }, 'bench pass start')
  },
})

export default { nets: [tick], leases: [lease] }
