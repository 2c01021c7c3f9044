/**
 * The names the worker reads from the environment: the global variables (with their defaults and meaning,
 * for docs/configuration.md and `leasecron config`), each net's prefix, and the names that are not the worker's but
 * are not typos either (the test suite's, the benchmarks').
 */
import { LOG_LEVELS } from './log-level.js'

/** The global variables the worker reads, with their defaults and meaning (docs/configuration.md, `config`). */
export const GLOBAL_VARIABLES = [
  [
    'MONGO_URI',
    '(unset: in-memory store, one process)',
    'MongoDB connection string; set it to elect across replicas',
  ],
  ['MONGO_DB', 'leasecron', 'database for leases and the nets’ stores'],
  [
    'LEASECRON_WORKER_ID',
    'host name',
    'replaces the host part of the owner id (a random suffix is always added)',
  ],
  ['PORT', '8080', 'HTTP port of /healthz, /readyz and /metrics (0 picks a free one)'],
  [
    'LEASECRON_BIND_ADDRESS',
    '0.0.0.0',
    'the address the HTTP server listens on: an IP address (`127.0.0.1`, `::`, a pod IP) or `localhost`',
  ],
  ['LOG_LEVEL', 'info', `one of ${LOG_LEVELS.join(', ')}`],
  ['LEASECRON_SHUTDOWN_TIMEOUT_MS', '25000', 'how long a stop waits for passes in flight'],
  [
    'LEASECRON_FORGE',
    '(auto)',
    '`sandbox` forces the local sandbox forge; `github` requires the App variables',
  ],
  ['PUBLIC_URL', '(unset)', 'where runs can be read; target URL of synthetic statuses'],
  [
    'LEASECRON_FORGE_CACHE_MB',
    '64',
    'MiB of forge answers kept to revalidate GETs (free 304s); in Mongo too when MONGO_URI is set; 0 turns it off',
  ],
  [
    'LEASECRON_FORGE_RESERVE',
    '10%',
    'rate-limit points each installation keeps for its other users (`500`, or `10%` of the limit): a pass that finds no more left is recorded `deferred`; `0` never defers',
  ],
  [
    'LEASECRON_INSTALLATIONS_REFRESH',
    '10m',
    'with `GITHUB_INSTALLATION_IDS=all`: how often the App’s installations are listed again (new ones start, gone or suspended ones stop)',
  ],
  ['LEASECRON_STATUS_PAGE', 'true', '`false` turns the status page at `/` off (`/status` JSON stays)'],
  [
    'LEASECRON_ADMIN_TOKEN',
    '(unset: admin API off)',
    'bearer token (16+ characters) of POST /nets/<net>/pause|resume|run and the page’s buttons; a secret',
  ],
  ['NODE_ENV', '(unset)', '`production` makes a missing GitHub App configuration an error'],
  [
    'LEASECRON_RUN_HISTORY',
    '1000',
    'runs kept per net in the run ledger (net_runs); the holder prunes older ones',
  ],
  [
    'LEASECRON_CLOCK_GUARD',
    'on',
    '`off` keeps campaigning while this replica’s clock is off from the Mongo server by more than a net’s ttl/6 (the offset is measured and exported either way)',
  ],
  [
    'LEASECRON_FAIR_SHARE',
    'off',
    '`on` spreads terms over the replicas (each keeps to ⌈leases ÷ live replicas⌉) and replaces per-lease polling with one vacancy read per retry interval',
  ],
  [
    'LEASECRON_FAIR_SHARE_SLACK',
    '0',
    'leases a replica keeps above its fair share (⌈leases ÷ live replicas⌉) before it steps down to the share',
  ],
] as const

/**
 * `LEASECRON_*` names other parts of the worker read (the run ledger's history, the forge cache, the
 * status page): known here so they are not refused as typos; their values are parsed where they are used.
 */
export const OTHER_GLOBAL_NAMES: string[] = []
/** Variables of the test suite and the benchmarks, never read by the worker: not typos. */
export const TOOL_PREFIXES = ['LEASECRON_TEST_', 'LEASECRON_BENCH_', 'LEASECRON_MODEL_']
/** LEASECRON_CHROMIUM: the browser the status page's test drives (docs/development.md); not the worker's. */
export const TOOL_NAMES = ['LEASECRON_CHROMIUM']

/** `LEASECRON_NET_` + the net name in upper snake case. */
export function netEnvPrefix(netName: string): string {
  return `LEASECRON_NET_${netName.toUpperCase().replace(/-/g, '_')}_`
}
