/**
 * What the command line reads a configuration with — the readers, their error and the shipped leases —
 * behind one module, so that the commands which read no configuration (`--version`, `--help`) load none
 * of it (zod, the cron libraries, the connection-string check) and those which do load it in one import:
 * each `import()` target is a file of its own in the bundle, and each file costs every start its
 * resolve, read and link.
 */
export { loadConfig } from '../config/load-config.js'
export { ConfigError } from '../config/config-error.js'
export { mongoUriIssue } from '../config/store-section.js'
export { LEASES } from '../leases.js'
