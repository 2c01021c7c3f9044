/**
 * The status page (`GET /`): the StatusSnapshot as one server-rendered HTML document — no framework, no
 * external asset, readable on a phone, light or dark by the reader's preference, refreshing itself.
 * One renderer per section; each takes the snapshot's part it shows and returns escaped HTML: every
 * interpolated value goes through `esc` or `num` (html-text.ts), whatever its declared type.
 *
 * It shows; it acts only through the admin API: with LEASECRON_ADMIN_TOKEN set, each net carries Pause,
 * Resume and Run now buttons (admin-script.ts posts them) and the header a form asking for the token;
 * without it the buttons are greyed, with a title saying why.
 */
import { duration, esc, instant, localTime, num, timeOfDay } from './html-text.js'
import { laneChart } from './lane-chart.js'
import { failuresInRow, stateLabel } from '../../status/failures-in-row.js'
import { renderInstallations } from './render-installations.js'
import { shownText } from '../../status/shown-text.js'
import { backfillProgressText } from '../../status/backfill-progress.js'
import { ADMIN_SCRIPT, PAGE_SCRIPT, PAGE_STYLE, REFRESH_MS } from './page-assets.js'
import type {
  AdminStatus,
  ForgeStatus,
  NetStatus,
  RateLimitStatus,
  RunStatus,
  StatusSnapshot,
} from '../../status/status-snapshot.js'

export { REFRESH_MS }

/** The whole document. */
export function renderStatusPage(snapshot: StatusSnapshot): string {
  const who = snapshot.replica ? `replica ${snapshot.replica.owner}` : 'read from the store'
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>leasecron status — ${esc(who)}</title>
<style>${PAGE_STYLE}</style></head>
<body><header><h1>leasecron status</h1>
<span class="muted" id="refresh-state">refreshing every ${REFRESH_MS / 1000} s</span>
<button type="button" id="pause" aria-pressed="false">Pause</button>${renderAdminBar(snapshot.admin)}</header>
${renderMain(snapshot)}
<script>${PAGE_SCRIPT}</script>
<script>${ADMIN_SCRIPT}</script>
</body></html>`
}

/**
 * With the admin API on: the token form (hidden until a button needs it; the token goes to
 * sessionStorage, the form never submits) and the line where an action's answer is shown.
 */
function renderAdminBar(admin: AdminStatus | null): string {
  if (!admin?.enabled) return ''
  return `
<div id="admin"><form id="admin-token" hidden autocomplete="off">
<label>Admin token <input type="password" id="admin-token-input" autocomplete="off" spellcheck="false"></label>
<label>Your name <input type="text" id="admin-by-input" placeholder="optional" maxlength="100"></label>
<button type="submit">Use token</button></form>
<button type="button" id="admin-forget" hidden>Forget token</button>
<p id="admin-result" role="status" aria-live="polite"></p></div>`
}

const ACTIONS = [
  ['pause', 'Pause'],
  ['resume', 'Resume'],
  ['run', 'Run now'],
] as const

/**
 * A net's buttons: live with the admin API on (Run now only where this replica runs the net), else greyed;
 * Cancel backfill while the net's backfill request runs.
 */
function renderActions(net: NetStatus, admin: AdminStatus | null): string {
  const off = !admin
    ? 'read from the store: no replica’s admin API here'
    : !admin.enabled
      ? 'the admin API is off on this replica (LEASECRON_ADMIN_TOKEN is not set)'
      : undefined
  const buttons = ACTIONS.map(([action, label]) => {
    const why = off ?? notApplicable(action, net)
    const state = why === undefined ? '' : ` disabled title="${esc(why)}"`
    return `<button type="button" data-action="${action}"${state}>${label}</button>`
  })
  // Only while a backfill runs: the other nets' rows keep their three buttons.
  if (net.backfill?.state === 'running') {
    const state = off === undefined ? '' : ` disabled title="${esc(off)}"`
    buttons.push(`<button type="button" data-action="cancel-backfill"${state}>Cancel backfill</button>`)
  }
  return `<div class="actions" role="group" aria-label="actions on ${esc(net.name)}">${buttons.join('')}</div>`
}

/** Why `action` cannot apply to the net as this snapshot shows it; undefined when it can. */
function notApplicable(action: (typeof ACTIONS)[number][0], net: NetStatus): string | undefined {
  if (action === 'run' && !net.enabled) return 'the net is disabled on this replica'
  if (action === 'pause' && net.paused) return 'already paused: resume it first'
  if (action === 'resume' && !net.paused) return 'not paused'
  return undefined
}

/** The part the script swaps on each refresh. */
export function renderMain(snapshot: StatusSnapshot): string {
  return `<main>
${renderReplica(snapshot)}
${renderInstallations(snapshot)}
${snapshot.nets.map((net) => renderNet(net, snapshot.generatedAt, snapshot.admin)).join('\n')}
${renderForge(snapshot.forge, runRequests(snapshot))}
${renderNotes(snapshot.notes)}
</main>`
}

function renderReplica(snapshot: StatusSnapshot): string {
  const { store, replica } = snapshot
  const kind =
    store.kind === 'memory'
      ? 'memory (this process only)'
      : `Mongo${store.serverVersion ? ` — ${esc(store.serverVersion)}` : ''}`
  const answering =
    store.answering === null
      ? '<span class="muted">no shared store</span>'
      : store.answering
        ? '<span class="ok">answering</span>'
        : '<span class="bad">not answering</span>'
  const rows = [
    ['Store', `${kind}, ${answering}`],
    ['This replica', replica ? esc(replica.owner) : '<span class="muted">none (CLI)</span>'],
    ['Version', replica ? esc(replica.version) : '—'],
    ['Up since', replica ? esc(instant(replica.startedAt)) : '—'],
    ['Updated', esc(instant(snapshot.generatedAt))],
  ]
  return `<section aria-labelledby="h-replica"><h2 id="h-replica">Replica and store</h2>
<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></section>`
}

function renderHolder(net: NetStatus): string {
  const h = net.holder
  const who = !h
    ? '<span class="warn">nobody (the lease is free)</span>'
    : h.thisReplica
      ? `<strong>this replica</strong> <span class="muted">(${esc(h.owner)})</span>`
      : `<strong>${esc(h.owner)}</strong> <span class="muted">(another replica)</span>`
  return net.leaseCorrupt === null ? who : `${who} ${renderCorrupt(net.leaseCorrupt)}`
}

/** What is wrong with the lease's stored document, when the store found it malformed. */
function renderCorrupt(what: string): string {
  return `<span class="bad">corrupt lease document: ${esc(shownText(what))}</span>`
}

/** The row class of a run: one of the known outcomes, never a stored string in an attribute. */
function runClass(outcome: RunStatus['outcome']): string {
  return RUN_CLASSES.has(outcome) ? `run-${outcome}` : 'run-unknown'
}
const RUN_CLASSES: ReadonlySet<string> = new Set([
  'ok',
  'failed',
  'timed-out',
  'aborted',
  'skipped',
  'missed',
  'paused',
  'deferred',
  'running',
])

/** One net: its lease, schedule, lag, skipped ticks and runs. */
export function renderNet(net: NetStatus, now: string, admin: AdminStatus | null = null): string {
  const id = `net-${net.name.replace(/[^A-Za-z0-9_-]/g, '-')}`
  const h = net.holder
  const skipped = net.skippedTicks
    ? Object.entries(net.skippedTicks)
        .map(([reason, n]) => `${esc(reason)} ${num(n)}`)
        .join(' · ') || 'none'
    : '—'
  const rows = [
    ['State', renderState(net.state, failuresInRow(net.runs ?? []))],
    ...(net.paused ? [['Paused', esc(pausedText(net.paused))]] : []),
    ...(net.runRequestedAt ? [['Run requested', esc(net.runRequestedAt)]] : []),
    ...(net.backfill ? [['Backfill', esc(backfillProgressText(net.backfill))]] : []),
    ...(net.installation === null ? [] : [['Installation', num(net.installation)]]),
    ['Holder', renderHolder(net)],
    ['Fence', h ? num(h.fence) : '—'],
    ['Lease expires in', h ? esc(duration(h.expiresInMs)) : '—'],
    ['Schedule', `<code>${esc(net.schedule)}</code> (${esc(net.timeZone)})`],
    ['Next fire', net.nextFireAt ? esc(nextFireText(net)) : 'not scheduled'],
    ['Run lag', net.runLagMs === null ? '—' : esc(duration(net.runLagMs))],
    ['Skipped ticks', skipped],
  ]
  const disabled = net.enabled ? '' : ' <span class="muted">(disabled on this replica)</span>'
  return `<section class="net" aria-labelledby="${id}" data-net="${esc(net.name)}">
<h2 id="${id}">${esc(net.name)}${disabled}</h2>
<dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
${renderActions(net, admin)}
${renderRuns(net.runs, now, net.timeZone)}</section>`
}

/** `by ann since … until …: why` (escaped by the caller). */
function pausedText(p: NonNullable<NetStatus['paused']>): string {
  const by = p.by ? ` by ${p.by}` : ''
  const until = p.until ? ` until ${p.until}` : ' until resumed'
  return `since ${p.at}${by}${until}${p.reason ? `: ${p.reason}` : ''}`
}

/**
 * The net's state (net-state.ts) in words and colour: the class comes from this fixed map, never from the
 * value itself, and the word is escaped.
 */
export function renderState(state: NetStatus['state'], failures = 0): string {
  if (state === null) return '<span class="muted">unknown (disabled or no ledger)</span>'
  const shown = STATE_SHOWN[state]
  if (!shown) return esc(state)
  // `failing ×3`: the slots that failed one after another, newest first (failures-in-row.ts).
  const word = shown.word.replace(state, stateLabel(state, failures))
  return `<span class="${shown.css}">${esc(word)}</span>`
}
const STATE_SHOWN: Readonly<Record<string, { css: string; word: string }>> = {
  ok: { css: 'ok', word: 'ok' },
  starting: {
    css: 'muted',
    word: 'starting: its first pass runs (or its START_AT has not come), none has ended yet',
  },
  late: { css: 'warn', word: 'late: no success within two schedule intervals' },
  slow: { css: 'warn', word: 'slow: its newest pass took longer than MAX_DURATION' },
  'too-fast': { css: 'warn', word: 'too fast: its newest pass ended sooner than MIN_DURATION' },
  failing: { css: 'bad', word: 'failing: the newest finished slot failed' },
  missed: { css: 'warn', word: 'missed: the newest accounted slot never ran' },
  paused: { css: 'warn', word: 'paused: its slots are recorded paused, not run' },
  finished: { css: 'muted', word: 'finished: past its END_AT or its MAX_RUNS, it has no slot left' },
}

/** A run's outcome in words (and colour), with its attempts when it took more than one. */
function outcomeCell(r: RunStatus): string {
  const word =
    r.outcome === 'failed'
      ? '<span class="bad">✗ failed</span>'
      : r.outcome === 'timed-out'
        ? '<span class="bad">⏱ timed out</span>'
        : r.outcome === 'ok'
          ? '<span class="ok">✓ ok</span>'
          : r.outcome === 'skipped'
            ? '<span class="muted" title="its tick found the previous pass running">skipped</span>'
            : r.outcome === 'missed'
              ? '<span class="bad" title="due while no replica ran the net; never ran">missed</span>'
              : r.outcome === 'paused'
                ? '<span class="muted" title="due while the net was paused; never ran">paused</span>'
                : r.outcome === 'deferred'
                  ? `<span class="bad" title="${esc(r.error ?? 'its installation’s budget was down to the reserve')}">deferred</span>`
                  : esc(r.outcome)
  const shown = r.manual
    ? `${word} <span class="muted" title="run now: not a schedule slot">(manual)</span>`
    : word
  return r.attempts !== null && r.attempts > 1
    ? `${shown} <span class="muted">after ${num(r.attempts)} attempts</span>`
    : shown
}

/** `2026-03-29 01:00:00 UTC`, or in a net's own zone its local time with the offset and the UTC instant. */
function nextFireText(net: NetStatus): string {
  const utc = instant(net.nextFireAt ?? '')
  return net.timeZone === 'UTC' || !net.nextFireLocal ? utc : `${net.nextFireLocal} (${utc})`
}

/**
 * The ledger's last runs; failed ones marked in colour and in words. Times of day in UTC, or for a net
 * read in another zone its local date and time with the offset (a DST change shows as it happened).
 */
export function renderRuns(runs: RunStatus[] | null, now: string, timeZone = 'UTC'): string {
  if (runs === null) return '<h3>Last runs</h3><p class="muted">No run ledger to read.</p>'
  if (runs.length === 0) return '<h3>Last runs</h3><p class="muted">No runs yet.</p>'
  const shown = (iso: string) => (timeZone === 'UTC' ? timeOfDay(iso) : localTime(iso, timeZone))
  const row = (r: RunStatus) => {
    const outcome = outcomeCell(r)
    const took =
      r.durationMs === null
        ? `running ${esc(duration(Date.parse(now) - Date.parse(r.startedAt)))}`
        : esc(duration(r.durationMs))
    const requests = r.requests === null ? '—' : num(r.requests)
    const main = `<tr class="${runClass(r.outcome)}"><td>${esc(shown(r.slot))}</td><td>${esc(r.owner)}</td><td class="num">${num(r.fence)}</td><td>${esc(shown(r.startedAt))}</td><td class="num">${took}</td><td>${outcome}</td><td class="num">${requests}</td></tr>`
    const error = r.error
      ? `<tr class="run-failed"><td colspan="7" class="error">${esc(shownText(r.error))}</td></tr>`
      : ''
    return main + error
  }
  const heading = runs.length === 1 ? 'Last run' : `Last ${runs.length} runs`
  return `<h3>${heading} <span class="muted">(${esc(timeZone)})</span></h3><div class="scroll"><table>
<thead><tr><th>Slot</th><th>Owner</th><th class="num">Fence</th><th>Started</th><th class="num">Duration</th><th>Outcome</th><th class="num">Requests</th></tr></thead>
<tbody>${runs.map(row).join('')}</tbody></table></div>`
}

/** The forge requests of the runs the page lists that started within the last 24 hours. */
export function runRequests(snapshot: Pick<StatusSnapshot, 'generatedAt' | 'nets'>): number {
  const since = Date.parse(snapshot.generatedAt) - 24 * 3_600_000
  let total = 0
  for (const net of snapshot.nets)
    for (const run of net.runs ?? []) if (Date.parse(run.startedAt) >= since) total += run.requests ?? 0
  return total
}

/**
 * Why the lanes are empty although the runs listed made `runRequests` requests: the panel counts only what
 * the workers' meters saw, and a `once`, a backfill (or, on the in-memory store, another replica) is not
 * one of them.
 */
function noLanes(forge: ForgeStatus, runRequests: number): string {
  if (runRequests === 0) return '<p class="muted">No forge requests in the last 24 hours.</p>'
  const elsewhere =
    forge.scope === 'installation'
      ? '<code>once</code> or <code>backfill</code>, whose requests this panel does not count: it counts the workers’'
      : 'another process (<code>once</code>, <code>backfill</code>, another replica): this panel counts this replica’s own requests only'
  return `<p class="muted">No forge requests counted here in the last 24 hours, but the runs listed above made ${plural(runRequests, 'request')}: they ran in ${elsewhere}.</p>`
}

/** The forge: this hour per lane, the 24-hour charts and the rate limits. */
export function renderForge(forge: ForgeStatus, runRequests = 0): string {
  const scope = forge.scope === 'installation' ? 'every replica of the installation' : 'this replica only'
  const lanes =
    forge.lanes.length === 0
      ? noLanes(forge, runRequests)
      : `<div class="lanes">${forge.lanes
          .map(
            (l) =>
              `<figure class="lane"><figcaption><strong>${esc(l.lane)}</strong> — this hour: ${plural(l.thisHour.requests, 'request')}, ${num(l.thisHour.notModified)} answered 304, ${plural(l.thisHour.points, 'point')}</figcaption>${laneChart(l)}</figure>`,
          )
          .join('')}</div>`
  return `<section aria-labelledby="h-forge"><h2 id="h-forge">Forge</h2>
<p class="muted">Requests per lane, last 24 hours (UTC hours; the lower, second-shade part of a bar answered 304), counted by ${scope}.</p>
${lanes}
${renderRateLimits(forge.rateLimits)}</section>`
}

function plural(n: number, word: string): string {
  return `${num(n)} ${word}${n === 1 ? '' : 's'}`
}

function renderRateLimits(limits: RateLimitStatus[] | null): string {
  if (limits === null) return '<h3>Rate limits</h3><p class="muted">Not known here (no request sent).</p>'
  if (limits.length === 0)
    return '<h3>Rate limits</h3><p class="muted">This replica has seen no rate-limit headers yet.</p>'
  const row = (l: RateLimitStatus) =>
    `<tr><td>${esc(l.host)}${l.installation === null ? '' : ` <span class="muted">installation ${num(l.installation)}</span>`}</td><td>${esc(l.resource)}</td><td class="num">${num(l.remaining)} / ${num(l.limit)}</td><td><meter min="0" max="${num(l.limit)}" low="${num(l.limit * 0.1)}" optimum="${num(l.limit)}" value="${num(l.remaining)}"></meter></td><td>${l.resetAt ? esc(timeOfDay(l.resetAt)) : '—'}</td></tr>`
  return `<h3>Rate limits</h3><div class="scroll"><table>
<thead><tr><th>Host</th><th>Resource</th><th class="num">Remaining / limit</th><th></th><th>Resets (UTC)</th></tr></thead>
<tbody>${limits.map(row).join('')}</tbody></table></div>`
}

function renderNotes(notes: string[]): string {
  if (notes.length === 0) return ''
  return `<section aria-labelledby="h-notes" class="notes"><h2 id="h-notes">Not shown</h2><ul>${notes
    .map((n) => `<li>${esc(shownText(n))}</li>`)
    .join('')}</ul></section>`
}
