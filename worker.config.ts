/**
 * The nets this worker runs. Each is enabled by default; `LEASECRON_NET_<NAME>_ENABLED=false` turns one
 * off. Another module with the same default export can be passed with `leasecron run --config FILE`.
 */
import { boardIssueSync, mergeGateSweeper, type WorkerFileConfig } from './src/index.js'

const config: WorkerFileConfig = {
  nets: [mergeGateSweeper, boardIssueSync],
}

export default config
