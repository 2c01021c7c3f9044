/**
 * The house's one-way arrows (docs/architecture.md), checked by `npm run check:boundaries`.
 * lease/ is the floor; forge/ and runs/ stand beside it; nets/ stand on forge/; only worker/ (and the
 * public entry points) know them all. A new arrow that points up fails the check.
 */
const room = (name) => `^src/${name}/`
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', from: { path: '^src/' }, to: { circular: true } },
    {
      name: 'lease-is-the-floor',
      comment: 'lease/ imports nothing of the product: the election must be usable on its own.',
      severity: 'error',
      from: { path: room('lease') },
      to: { path: '^src/', pathNot: [room('lease'), room('store-call')] },
    },
    {
      name: 'runs-stand-on-lease-only',
      comment: 'the run ledger knows leases (fences), nothing above them.',
      severity: 'error',
      from: { path: room('runs') },
      to: { path: '^src/', pathNot: [room('runs'), room('lease'), room('store-call')] },
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
      from: { path: room('nets'), pathNot: '^src/nets/demo-seed\\.ts$' },
      to: { path: room('sandbox') },
    },
    {
      name: 'nothing-imports-the-worker-but-entries',
      comment: 'worker/ is the composition root; only the public entries re-export it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/worker/', '^src/index\\.ts$', '^src/testing\\.ts$'] },
      to: { path: room('worker') },
    },
    {
      name: 'src-never-imports-tests-or-benches',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|examples)/' },
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
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
