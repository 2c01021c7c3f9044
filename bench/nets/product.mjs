// Bench nets module (`leasecron run --config bench/nets/product.mjs`): the two shipped nets, the
// merge-gate sweeper and the board issue sync, from the built dist/, each wrapped so that every pass logs
// `{ event: 'pass-start', at }` (wall-clock ms) at info before it runs — what the takeover bench times.
// The nets themselves are unchanged; their schedules come from LEASECRON_NET_*_SCHEDULE.
import { LEASES } from '../../dist/index.js'
import { createBoardIssueSync } from '../../dist/src/nets/board-sync/board-issue-sync.js'
import { createMergeGateSweeper } from '../../dist/src/nets/merge-gate/merge-gate-sweeper.js'

/** The same net, with a `pass-start` log line in front of each pass. */
export function timed(net) {
  return {
    ...net,
    term(resources, context) {
      const pass = net.term(resources, context)
      return async (ctx) => {
        ctx.log.info({ event: 'pass-start', at: Date.now(), pass: ctx.pass }, 'bench pass start')
        await pass(ctx)
      }
    },
  }
}

export default { nets: [timed(createMergeGateSweeper()), timed(createBoardIssueSync())], leases: LEASES }
