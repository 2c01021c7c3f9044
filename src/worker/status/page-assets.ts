/**
 * The status page's inline stylesheet and script — inline, because the page must work on an air-gapped
 * cluster and load nothing else (no fonts, no files, no CDN).
 *
 * The script refreshes without a full reload: every 5 s it fetches its own address again (the
 * `?installation=` filter kept) and swaps the `<main>`
 * element, so the header (and its pause control) stays put and nothing flickers.
 *
 * A second script, the admin buttons' (admin-script.ts), asks it to refresh at once after an action
 * (a `leasecron:refresh` event on the document).
 *
 * The page is served with a Content-Security-Policy naming these by their SHA-256 hashes: the
 * browser runs these scripts and applies this stylesheet and nothing else — no other inline script, no
 * event-handler attribute, no `style` attribute, no external load. So a value that ever slipped past the
 * escaping would still be inert.
 */
import { createHash } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import { ADMIN_SCRIPT } from './admin-script.js'

/** How often the page refreshes itself. */
export const REFRESH_MS = 5_000

export const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f7f7f5;--card:#fff;--fg:#1d1f21;--muted:#5f6368;--line:#dcdcd7;
--accent:#2563eb;--accent2:#1e3a8a;--ok:#15803d;--bad:#b91c1c;--badbg:#fdecec;--warn:#a16207}
@media (prefers-color-scheme:dark){:root{--bg:#111315;--card:#1b1e21;--fg:#e6e6e3;--muted:#a0a4a8;
--line:#30353a;--accent:#60a5fa;--accent2:#bfdbfe;--ok:#4ade80;--bad:#f87171;--badbg:#3b1616;--warn:#facc15}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;
padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--card);position:sticky;top:0}
header h1{font-size:1.15rem;margin:0}
figure.lane{margin:0}
main{max-width:64rem;margin:0 auto;padding:1rem}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem}
h2{font-size:1.05rem;margin:.1rem 0 .5rem}
h3{font-size:.95rem;margin:.75rem 0 .35rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
dt{color:var(--muted)}dd{margin:0;overflow-wrap:anywhere}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad);font-weight:600}.warn{color:var(--warn)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.875rem;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid var(--line);white-space:nowrap}
th{color:var(--muted);font-weight:500}
td.num,th.num{text-align:right}
tr.run-failed td{background:var(--badbg)}tr.run-failed td:first-child{box-shadow:inset 4px 0 var(--bad)}
tr.run-timed-out td{background:var(--badbg)}tr.run-timed-out td:first-child{box-shadow:inset 4px 0 var(--warn)}
td.error{white-space:normal;color:var(--bad)}
button{font:inherit;padding:.3rem .8rem;border-radius:6px;border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer}
button:disabled{opacity:.5;cursor:not-allowed}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.6rem 0 .2rem}
#admin{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;width:100%}
#admin form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
#admin form[hidden],#admin button[hidden]{display:none}
#admin input{font:inherit;padding:.25rem .4rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
#admin-result{margin:0}
.lanes{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
.chart{width:100%;height:auto;display:block}
.chart .bar{fill:var(--accent)}.chart .bar-304{fill:var(--accent2)}
.chart .axis{stroke:var(--muted);stroke-width:1}.chart .tick{fill:var(--muted);font-size:11px}
meter{width:8rem;vertical-align:middle}
.notes li{color:var(--muted)}
`

/** Refreshes `<main>` every `everyMs` unless paused (or the tab is hidden). */
export function pageScript(everyMs: number): string {
  return `(() => {
  const button = document.getElementById('pause')
  const state = document.getElementById('refresh-state')
  let paused = false
  let busy = false
  const refresh = async () => {
    busy = true
    try {
      const response = await fetch(location.pathname + location.search, { cache: 'no-store' })
      if (!response.ok) throw new Error('HTTP ' + response.status)
      const next = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('main')
      if (next) document.querySelector('main').replaceWith(next)
      if (!paused) state.textContent = 'refreshing every ${everyMs / 1000} s'
    } catch (error) {
      state.textContent = 'refresh failed (' + error.message + '); retrying'
    } finally {
      busy = false
    }
  }
  document.addEventListener('leasecron:refresh', () => refresh())
  button.addEventListener('click', () => {
    paused = !paused
    button.textContent = paused ? 'Resume' : 'Pause'
    button.setAttribute('aria-pressed', String(paused))
    state.textContent = paused ? 'paused' : 'refreshing every ${everyMs / 1000} s'
  })
  setInterval(() => {
    if (!paused && !busy && !document.hidden) refresh()
  }, ${everyMs})
})()`
}

/** The script the page carries, exactly as served (its hash is in the policy). */
export const PAGE_SCRIPT = pageScript(REFRESH_MS)

export { ADMIN_SCRIPT }

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

/**
 * The status page's policy: its own two scripts and stylesheet by hash, `fetch` to its own origin (the
 * refresh, the admin API), the empty `data:` favicon, and nothing else — no plugin, no base, no form, no framing.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAGE_SCRIPT)} ${sha256(ADMIN_SCRIPT)}`,
  `style-src ${sha256(PAGE_STYLE)}`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/** The headers the page is served with (over the server's own, http-limits.ts). */
export const PAGE_HEADERS: Readonly<OutgoingHttpHeaders> = { 'content-security-policy': PAGE_CSP }
