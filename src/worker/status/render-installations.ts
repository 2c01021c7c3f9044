/**
 * The status page's installations section: one row per installation the nets act as — its nets' holders
 * per replica, their shown runs by outcome and its budget left — each linking to the page narrowed to it
 * (`?installation=12`), and, on a narrowed page, the line saying so with the way back to all of them.
 *
 * Only HTML: the figures come from installation-summary.ts; every value goes through `esc` or `num`.
 */
import { esc, num, timeOfDay } from './html-text.js'
import type { InstallationStatus, StatusSnapshot } from '../../status/status-snapshot.js'

/** The section, or nothing when no net names an installation and no filter is in force. */
export function renderInstallations(snapshot: StatusSnapshot): string {
  const filter = snapshot.installationFilter
  if (snapshot.installations.length === 0 && filter === null) return ''
  const narrowed =
    filter === null
      ? ''
      : `<p id="installation-filter">Showing installation ${num(filter)} only — <a href="?">every installation</a></p>`
  const rows = snapshot.installations.map(installationRow).join('')
  const table =
    snapshot.installations.length === 0
      ? '<p class="muted">No net here acts as this installation.</p>'
      : `<div class="scroll"><table>
<thead><tr><th>Installation</th><th class="num">Nets</th><th>Holders (leases per replica)</th><th>Runs shown</th><th class="num">Budget left</th><th></th><th>Resets (UTC)</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
  return `<section aria-labelledby="h-installations"><h2 id="h-installations">Installations</h2>
${narrowed}${table}</section>`
}

function installationRow(i: InstallationStatus): string {
  const holders =
    [
      ...i.holders.map(
        (h) =>
          `${h.thisReplica ? '<strong>this replica</strong>' : esc(h.owner)} ×${num(h.leases)}${h.thisReplica ? ` <span class="muted">(${esc(h.owner)})</span>` : ''}`,
      ),
      ...(i.unheld > 0 ? [`<span class="warn">${num(i.unheld)} free</span>`] : []),
    ].join(' · ') || '—'
  const runs =
    i.runs === null
      ? '<span class="muted">no ledger</span>'
      : Object.entries(i.runs)
          .map(([outcome, n]) => `${esc(outcome)} ${num(n)}`)
          .join(' · ') || 'none yet'
  const budget = i.budget
  const left = budget
    ? `${num(budget.remaining)} / ${num(budget.limit)}`
    : '<span class="muted">not seen</span>'
  const meter = budget
    ? `<meter min="0" max="${num(budget.limit)}" low="${num(budget.limit * 0.1)}" optimum="${num(budget.limit)}" value="${num(budget.remaining)}"></meter>`
    : ''
  const resets = budget?.resetAt ? esc(timeOfDay(budget.resetAt)) : '—'
  return `<tr data-installation="${num(i.installation)}"><td><a href="?installation=${num(i.installation)}">${num(i.installation)}</a></td><td class="num">${num(i.nets.length)}</td><td>${holders}</td><td>${runs}</td><td class="num">${left}</td><td>${meter}</td><td>${resets}</td></tr>`
}
