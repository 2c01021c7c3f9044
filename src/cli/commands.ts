/**
 * The one command table: each command's name, operands, summary, options, help and handler. The parser,
 * the help and the dispatch read it; adding a command is adding an entry here and its file.
 *
 * Each handler imports its command's module when it runs (`import()`), so a process pays in start-up time
 * and memory only for what its command uses: `run` never loads the sandbox unless it starts one, `once`
 * never loads the status page, `config` and `--help` never load the Mongo driver
 * (test/library/bundle-graph.test.ts reads the bundle to keep it so).
 */
import { BACKFILL_CONFIRM_ABOVE, BACKFILL_MAX_SLOTS } from '../term/backfill-limits.js'
import { DEMO_SANDBOX_DATA } from '../worker/local-sandbox.js'
import type { Command } from './command.js'
import { netList, printHelp } from './help.js'

export const COMMANDS: readonly Command[] = [
  {
    name: 'run',
    operands: [],
    summary: 'run the worker (default)',
    options: [],
    needs: 'forge',
    help: `Usage: leasecron run [--config FILE]

Runs the worker: campaigns for each enabled net's lease and runs its passes while elected.
SIGTERM/SIGINT stop it cleanly (leases released, forge meter flushed); a second signal exits at once (130).`,
    handler: async (context) => (await import('./run.js')).runCommand(context),
  },
  {
    name: 'once',
    operands: ['<net>'],
    summary: 'one term, one pass for one schedule slot, release, exit (serverless, cron jobs)',
    options: ['slot', 'now', 'by', 'reason', 'json'],
    needs: 'forge',
    help: `Usage: leasecron once <net> [--slot <ISO instant>|auto | --now] [--json] [--config FILE]

Campaigns once for the net's lease; elected, it claims one schedule slot in the run ledger, runs one pass
for it, records the outcome and releases the lease. Many triggers of one slot run it once.
  --slot   an ISO 8601 instant with a zone (e.g. 2026-09-30T15:05:00Z), normalized to the schedule's most
           recent fire time at or before it, so a trigger's own timestamp works; auto (default): now
  --now    a manual run now: its own ledger key (<net>@manual@<ISO>), never a scheduled slot's, shown as
           manual in history; when a worker holds the lease, it is asked to run it (outcome requested;
           --by NAME and --reason TEXT go with the request)
  --json   print {"net","slot","outcome","owner","fence","holder"?} instead of one line
A net with JITTER starts a scheduled slot's pass at its offset after the slot, waiting for it if needed.
Outcomes: ran, slot-taken (it already ran or runs elsewhere), held (another owner holds the lease; named),
failed. Exit 0 for ran, slot-taken and held; 1 for failed; 64 for a --slot that is not a real instant
or lies more than 60 s after now; 75 when this host's clock is off from the Mongo server by more than the
net's TTL/6 (nothing taken or recorded);
130 when SIGTERM/SIGINT aborted the pass (recorded as aborted, lease released).`,
    moreHelp: netList,
    handler: async (context) => (await import('./once.js')).onceCommand(context),
  },
  {
    name: 'backfill',
    operands: ['<net>'],
    summary: "run (or list, --dry-run) the net's slots in a range, oldest first, each once",
    options: ['from', 'to', 'dry-run', 'json', 'yes', 'by', 'reason', 'cancel'],
    needs: 'config',
    help: `Usage: leasecron backfill <net> --from <ISO> --to <ISO> [--dry-run] [--json] [--yes] [--by NAME] [--reason TEXT] [--config FILE]
       leasecron backfill <net> --cancel [--by NAME] [--reason TEXT] [--json]

Runs every slot of the net's schedule from --from to --to (both included; read in the net's time zone by
the scheduler's own rule, daylight-saving changes included), oldest first, under one term of its lease:
each slot is claimed in the run ledger and run like a worker's pass (TIMEOUT, RETRIES), then recorded.
A slot already recorded is skipped (slot-taken), so running the same command again resumes; a slot
recorded missed or paused runs. A failed slot is recorded and the next one runs.
  --from, --to  ISO 8601 instants with a zone (e.g. 2026-03-29T00:00:00Z); --to at or before now
  --dry-run     list the slots (local time with offset, and UTC) without running anything; --to may
                lie in the future, so this also shows how a schedule meets a daylight-saving change
  --json        with --dry-run: {"net","schedule","timeZone","from","to","slots":[UTC instants]};
                otherwise the summary {"net","owner","fence","end","counts","slots":[{slot,outcome,…}]}
                alone on stdout (progress and the log stay on stderr)
  --yes         run a range of more than ${BACKFILL_CONFIRM_ABOVE} slots (at most ${BACKFILL_MAX_SLOTS}, and no more than
                LEASECRON_RUN_HISTORY)
Progress goes to stderr, one line a slot: [3/12] 2026-03-29T01:00:00Z ok 1.2s.
When a worker holds the net's lease, nothing runs here: the slots go to that holder as a backfill request
(MONGO_URI), which it runs oldest first between its passes, each claimed in the ledger under its term; a
successor after a takeover goes on where it stopped. leasecron status shows its progress (done, left,
failed). One request runs per net at a time: a second is refused naming the first (exit 75).
  --by, --reason  who and why, kept with the request (--by: the OS user by default)
  --cancel        end the running request: the slot in flight finishes, no further slot starts
SIGTERM/SIGINT abort the slot in flight (recorded aborted), run no more and release the lease.
Exit 0 every slot ran or was already recorded, or the range has none, or the request was left for the
holder; 1 a slot failed or timed out, the term ended early, or the store did not answer; 64 bad usage
(unknown net, a bad or reversed range, --to in the future, too many slots, more than ${BACKFILL_CONFIRM_ABOVE} without --yes);
75 a backfill request is still running on the holder, or this host's clock is off from the Mongo server
by more than the net's TTL/6 (nothing ran); 130 stopped by a signal.`,
    moreHelp: netList,
    handler: async (context) => (await import('./backfill.js')).backfillCommand(context),
  },
  {
    name: 'status',
    operands: [],
    summary:
      "list the leases: holder, fence, expires in, and each net's last run\n(--json: the status snapshot a worker serves at GET /status)",
    options: ['json', 'installation'],
    needs: 'config',
    help: `Usage: leasecron status [--json] [--installation ID] [--config FILE]

Lists each lease in the configured store (MONGO_URI): holder, fence, how long until it expires, and the
last run of its net (slot, owner, outcome, duration); each pause in force and each net's backfill request
with its progress (done, left, failed); then, when the nets act as GitHub App installations,
one line per installation: its leases held per replica, its nets' last runs by outcome.
--installation ID narrows both to the nets acting as that installation (exit 64 for an ID that is not one).
--json prints the status snapshot (the object a worker answers at GET /status; its fields are in
docs/operations.md, "Status JSON"), read from the store: replica, skipped ticks and rate limits are null
because no worker answered.`,
    handler: async (context) => (await import('./status.js')).statusCommand(context),
  },
  {
    name: 'history',
    operands: ['<net>'],
    summary: "list a net's last runs from the run ledger",
    options: ['limit', 'json'],
    needs: 'config',
    help: `Usage: leasecron history <net> [--limit N] [--json] [--config FILE]

Lists the net's last N runs (default 20, at most 1000) from the run ledger, newest first: slot, owner,
fence, started, duration, outcome (with "(manual)" or "(retake N)"), attempts, forge requests spent.
--json prints one JSON array.`,
    handler: async (context) => (await import('./history.js')).historyCommand(context),
  },
  {
    name: 'pause',
    operands: ['<net>'],
    summary: 'pause a net on every replica (MONGO_URI): its due slots are recorded paused, not run',
    options: ['for', 'until', 'reason', 'by', 'abort', 'json'],
    needs: 'config',
    help: `Usage: leasecron pause <net> [--for D | --until ISO] [--reason TEXT] [--by NAME] [--abort] [--json]

Pauses the net in the shared store (MONGO_URI). The replica holding its lease reads it at its next tick
and records each slot due "paused" in the run ledger (with who and why) instead of running it.
  --for     how long (90s, 30m, 2h, 1d); --until: an ISO 8601 instant with a zone. Without either: until resumed
  --reason  why (shown in status and recorded with each paused slot); --by: who (default: the OS user)
  --abort   also abort the pass in flight (the holder hears of it at its next renewal)
A newer pause replaces the one in force. Exit 0; 64 for an unknown net or a bad option; 1 when the store
does not answer or there is no MONGO_URI.`,
    moreHelp: netList,
    handler: async (context) => (await import('./pause.js')).pauseCommand(context),
  },
  {
    name: 'resume',
    operands: ['<net>'],
    summary: 'lift a net’s pause; --catch-up runs the slots recorded paused',
    options: ['catch-up', 'reason', 'by', 'json'],
    needs: 'config',
    help: `Usage: leasecron resume <net> [--catch-up] [--by NAME] [--reason TEXT] [--json]

Lifts the net's pause in the shared store (MONGO_URI); its next slot runs as scheduled. The slots recorded
"paused" stay so, unless --catch-up asks the replica holding the lease to run them (oldest first, at most
20, once it hears of it at its next renewal). A net that is not paused is left as it is (exit 0).`,
    moreHelp: netList,
    handler: async (context) => (await import('./resume.js')).resumeCommand(context),
  },
  {
    name: 'config',
    operands: [],
    summary: 'print the effective configuration (secrets redacted) or its errors',
    options: [],
    needs: 'config',
    help: `Usage: leasecron config [--config FILE]

Prints the effective configuration as JSON with secrets redacted, or every invalid variable (exit 78).
The GitHub App variables are not required (this command uses no forge); their problems are shown.`,
    handler: async (context) => (await import('./config.js')).configCommand(context),
  },
  {
    name: 'sandbox',
    operands: [],
    summary: 'start one seeded sandbox forge for several workers to share (a demo)',
    options: ['port', 'env-out', 'installations'],
    needs: 'config',
    help: `Usage: leasecron sandbox [--port N] [--env-out FILE] [--installations N]

Starts one sandbox forge on 127.0.0.1 (a local GitHub stand-in seeded with ${DEMO_SANDBOX_DATA.repos} repositories,
their pull requests and issues) and prints what workers need to share it:
  GITHUB_API_URL, GITHUB_APP_ID, GITHUB_INSTALLATION_ID and GITHUB_APP_PRIVATE_KEY_FILE (a key file it writes).
--installations N (1 to 20, default 1): the App is installed on N organizations (sandbox-org-1…), each
with ${DEMO_SANDBOX_DATA.repos} repositories, installation ids 42420001 up; GITHUB_INSTALLATION_IDS=all replaces GITHUB_INSTALLATION_ID.
It also writes them to an env file (--env-out, else one beside the key); load it with
  set -a; . FILE; set +a
With MONGO_URI (and MONGO_DB) set it seeds the merge-gate sweeper's gating runs into that database too.
The env file is written last, once the sandbox listens and is seeded, so a script can wait for it.
Runs until SIGINT, SIGTERM or SIGHUP, or until the process that started it exits, then removes the key
file and the env file and exits 0. Started through npx (npm exec), it runs under npm's shell: npm passes
a SIGTERM to that shell, which exits, and the sandbox follows; a SIGINT sent to npm's pid alone stays with
that shell, so send it to the pid the sandbox prints (or Ctrl-C it in the foreground, or kill -INT %1).`,
    handler: async (context) => (await import('./sandbox.js')).sandboxCommand(context),
  },
  {
    name: 'help',
    operands: ['[command]'],
    summary: "this text, or a command's",
    options: [],
    needs: 'nothing',
    help: `Usage: leasecron help [command]

Prints the overview, or the help of one command.`,
    handler: ({ args, values, io }) => printHelp(io, args[0] ?? 'main', values.config, COMMANDS),
  },
]
