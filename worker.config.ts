/**
 * The nets this worker runs. Each is enabled by default; `LEASECRON_NET_<NAME>_ENABLED=false` turns one
 * off. Another module with the same default export can be passed with `leasecron run --config FILE`.
 *
 * A user's configuration imports `leasecron`; this one imports the nets' own modules instead, because it
 * is the loader's shipped default: `src/index.ts` exports the loader, which imports this file, so an
 * import of the index here would close a cycle (`npm run check:boundaries` refuses it).
 */
import { boardIssueSync } from './src/nets/board-sync/board-issue-sync.js'
import { mergeGateSweeper } from './src/nets/merge-gate/merge-gate-sweeper.js'
import type { NetDefinition } from './src/nets/net.js'

/** A `WorkerFileConfig` (the loader's type, which this file cannot import without the same cycle). */
const config: { nets: readonly NetDefinition[] } = {
  nets: [mergeGateSweeper, boardIssueSync],
}

export default config
