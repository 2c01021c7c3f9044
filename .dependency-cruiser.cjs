/**
 * The house's one-way arrows (docs/architecture.md), checked by `npm run check:boundaries`.
 * lease/ is the floor; forge/ and runs/ stand beside it; nets/ stand on forge/; observe/ under the term
 * engine (term/) and the replicas' share (share/); only worker/ (and the public entry points) know them all. A new arrow that points up fails the check.
 *
 * The check cruises src/, the shipped worker.config.ts, examples/ and bench/ (package.json names them),
 * and sees test/ where they reach it, so an arrow into tests or benches is visible too. Every exception
 * to a rule (a `pathNot` that lets something through) says why beside it.
 */
const room = (name) => `^src/${name}/`
/** What `leasecron`, `leasecron/sandbox`, `leasecron/testing`, `leasecron/serverless` and `leasecron/nets` resolve to (tsconfig.json `paths`). */
const PUBLIC_ENTRIES = '^src/(index|sandbox|testing|serverless|nets)\\.ts$'
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'no cycle anywhere the check looks: src/, worker.config.ts, examples/, bench/.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lease-is-the-floor',
      comment: 'lease/ imports nothing of the product: the election must be usable on its own.',
      severity: 'error',
      from: { path: room('lease') },
      // Its own room, store-call/ (the one way to call Mongo) under it, and logger.ts (the floor: the one
      // logger shape, an interface only).
      to: { path: '^src/', pathNot: [room('lease'), room('store-call'), '^src/logger\\.ts$'] },
    },
    {
      name: 'runs-stand-on-lease-only',
      comment: 'the run ledger knows leases (fences), nothing above them.',
      severity: 'error',
      from: { path: room('runs') },
      // Itself, lease/ for the fence its records carry, and store-call/ for its Mongo calls.
      to: { path: '^src/', pathNot: [room('runs'), room('lease'), room('store-call')] },
    },
    {
      name: 'control-stands-on-store-call-only',
      comment: 'control/ keeps what operators asked of a net; it knows no lease, ledger, net or worker.',
      severity: 'error',
      from: { path: room('control') },
      // Itself, store-call/ for its Mongo calls, durations.ts (the floor) for a pause's `for`, and
      // plain-text.ts (the floor) for a reason kept as one plain, bounded line.
      to: {
        path: '^src/',
        pathNot: [room('control'), room('store-call'), '^src/durations\\.ts$', '^src/plain-text\\.ts$'],
      },
    },
    {
      name: 'forge-knows-no-election',
      comment: 'forge/ talks to GitHub and counts it; it knows nothing of leases, nets or the worker.',
      severity: 'error',
      from: { path: room('forge') },
      to: { path: [room('lease'), room('runs'), room('nets'), room('worker'), room('sandbox')] },
    },
    {
      name: 'sandbox-stands-alone',
      comment: 'the sandbox is a GitHub stand-in: it knows nothing of leases, nets or the worker.',
      severity: 'error',
      from: { path: room('sandbox') },
      to: { path: [room('lease'), room('runs'), room('nets'), room('worker')] },
    },
    {
      name: 'nets-below-the-worker',
      comment: 'nets use forge/ and their own stores; the worker drives them, never the reverse.',
      severity: 'error',
      from: { path: room('nets') },
      to: { path: room('worker') },
    },
    {
      name: 'nets-do-not-run-the-sandbox',
      comment: "a net must work against GitHub; only the demo seed reads the sandbox fixture's types.",
      severity: 'error',
      // The demo seed writes gating runs for the sandbox's own pull requests: it needs the fixture's shape.
      from: { path: room('nets'), pathNot: '^src/nets/demo-seed\\.ts$' },
      to: { path: room('sandbox') },
    },
    {
      name: 'nothing-imports-the-worker-but-entries',
      comment:
        'worker/ is the composition root; only the public entries re-export it, cli/ runs it, and testing/ runs a pass through it (runOnePass is `once` in-process).',
      severity: 'error',
      // worker/ itself; cli/, which runs it; the index, which exports createWorker and the configuration
      // loaders; the testing entry and runOnePass, which runs one pass of a net through the worker's once term.
      from: {
        path: '^src/',
        pathNot: [
          '^src/worker/',
          '^src/cli/',
          '^src/index\\.ts$',
          '^src/testing\\.ts$',
          '^src/testing/run-one-pass\\.ts$',
          // The serverless entry runs a platform's trigger as `once` on a kept runtime (worker/runtime.ts).
          '^src/serverless\\.ts$',
          '^src/serverless/',
        ],
      },
      to: { path: room('worker') },
    },
    // The term engine, the replicas' share and observability: the rooms the worker composes.
    {
      name: 'term-below-the-worker',
      comment:
        'term/ (the term engine: scheduler, slot pass, catch-up, backfill, once) is wired by the worker; it never reaches back up into the runtime, the HTTP surface or the CLI.',
      severity: 'error',
      from: { path: room('term') },
      to: { path: [room('worker'), room('cli')] },
    },
    {
      name: 'share-below-the-term',
      comment:
        'share/ (replicas together: fair share, vacancy watch, clock guard) gates campaigns; it names the scheduler only by its gate type.',
      severity: 'error',
      from: { path: room('share') },
      // The campaign gate implements the scheduler's CampaignGate interface: a type, nothing that runs.
      to: { path: [room('term'), room('worker'), room('cli')], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'observe-is-below-the-engine',
      comment:
        'observe/ (logger, metrics, pass spans, pings) is what the engine and the worker report through; it knows neither.',
      severity: 'error',
      from: { path: room('observe') },
      to: { path: [room('term'), room('share'), room('worker'), room('cli')] },
    },
    {
      name: 'status-is-a-read-model',
      comment:
        "status/ (the status snapshot: its schema, its sources and their collection) is what /status, the page and `status --json` show; it reads the stores and the engine's outcomes, and knows neither the HTTP surface nor the CLI that serve it.",
      severity: 'error',
      from: { path: room('status') },
      to: { path: [room('worker'), room('cli')] },
    },
    {
      name: 'src-never-imports-tests-or-benches',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|examples)/' },
    },
    {
      name: 'examples-import-what-a-user-can',
      comment:
        'an example is what a user writes: it imports leasecron, leasecron/sandbox and leasecron/testing, never an internal module, a bench or a test.',
      severity: 'error',
      from: { path: '^examples/' },
      // The public entries are all a user can import.
      to: { path: '^(src|bench|test)/|^worker\\.config\\.ts$', pathNot: PUBLIC_ENTRIES },
    },
    {
      name: 'nothing-imports-bench',
      comment: 'bench/ measures the product from outside: it may import anything, and nothing imports it.',
      severity: 'error',
      // bench/ may import its own modules.
      from: { pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'shipped-config-lists-nets',
      comment:
        "worker.config.ts is the loader's shipped default: it imports the nets it lists and their leases, nothing that imports the loader (src/index.ts would close a cycle).",
      severity: 'error',
      from: { path: '^worker\\.config\\.ts$' },
      // The nets' modules and the lease registry are what a list of nets is made of.
      to: { path: '^src/', pathNot: [room('nets'), '^src/leases\\.ts$'] },
    },
    // The cli/ and config/ rooms: cli/ on top, config/ under the worker, durations and
    // schedule/ on the bottom floor.
    {
      name: 'cli-is-the-top',
      comment:
        'cli/ turns a command line into a command; nothing imports it (its bin, cli/main.ts, is the entry).',
      severity: 'error',
      from: { path: '^src/', pathNot: room('cli') },
      to: { path: room('cli') },
    },
    {
      name: 'config-below-the-worker-and-the-cli',
      comment:
        "config/ reads the environment and the nets' option definitions; the worker and the CLI run on it.",
      severity: 'error',
      from: { path: room('config') },
      to: { path: [room('worker'), room('cli')] },
    },
    {
      name: 'lower-rooms-know-no-config',
      comment:
        'the election, the ledger, the forge, the nets and the sandbox take values, never the configuration.',
      severity: 'error',
      from: { path: [room('lease'), room('runs'), room('forge'), room('nets'), room('sandbox')] },
      to: { path: room('config') },
    },
    {
      name: 'plain-text-and-secret-names-are-the-floor',
      comment:
        'plain-text.ts (stored text as one plain, bounded line) and secret-parameter.ts (which name=value pairs carry a credential) are shared by control/, forge/, nets/, config/ and worker/: they import nothing of the product.',
      severity: 'error',
      from: { path: '^src/(plain-text|secret-parameter)\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'durations-are-the-floor',
      comment:
        'durations.ts is shared by control/, config/, nets/ and worker/: it imports nothing of the product.',
      severity: 'error',
      from: { path: '^src/durations\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'schedule-is-the-floor',
      comment:
        "schedule/ (cron schedules: the check, the interval, fire times and slots in a zone, a range's slots) is shared by config/, testing/, cli/ and worker/: it imports nothing of the product but its own room (schedule.ts reads wall time through zoned-time.ts, node-cron's ticks through cron-utc-ticks.ts, pins cron-parser's locale through cron-locale.ts and refuses steps past their field through cron-step-check.ts).",
      severity: 'error',
      from: { path: room('schedule') },
      to: { path: '^src/', pathNot: room('schedule') },
    },
    {
      name: 'store-call-is-the-bottom',
      comment:
        'store-call/ (every Mongo call: bounded, one error type, documents parsed) sits under lease/: every room may use it, it imports none. That no Mongo call bypasses it is checked by scripts/check-store-calls.mjs (this config sees only src/).',
      severity: 'error',
      from: { path: room('store-call') },
      to: { path: '^src/', pathNot: room('store-call') },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(src|examples|bench|test)/|^worker\\.config\\.ts$',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
