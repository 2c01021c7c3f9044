/**
 * The nets this worker runs. Each is enabled by default; `LEASECRON_NET_<NAME>_ENABLED=false` turns one off.
 */
import type { WorkerFileConfig } from './src/index.js'

const config: WorkerFileConfig = {
  nets: [],
}

export default config
