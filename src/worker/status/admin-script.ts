/**
 * The status page's second script: the Pause / Resume / Run now (and Cancel backfill) buttons of each net, when the replica's
 * admin API is on. Served inline like the refresh script and named by its hash in the page's
 * Content-Security-Policy (page-assets.ts), so it is the only other code the page runs.
 *
 * The token is asked for once, in the header's small form, and kept in `sessionStorage`: for this tab
 * only, gone when it closes — never a cookie (sent with every request, readable by a CSRF) and never the
 * URL (kept in history, logs and referrers). A 401 or 403 forgets it and asks again. Each click POSTs to
 * the admin API (admin/admin-routes.ts) with `Authorization: Bearer`, shows the answer's sentence (as
 * text, never markup) and asks the refresh script to reload `<main>` at once (a `leasecron:refresh`
 * event), so the net's row shows what changed.
 *
 * Clicks are caught on the document, not on each button: the refresh replaces the buttons every 5 s.
 */

/** Where the token (and the name given with it) are kept, in sessionStorage. */
export const TOKEN_KEY = 'leasecron-admin-token'
export const BY_KEY = 'leasecron-admin-by'

export const ADMIN_SCRIPT = `(() => {
  const form = document.getElementById('admin-token')
  if (!form) return
  const input = document.getElementById('admin-token-input')
  const byInput = document.getElementById('admin-by-input')
  const forget = document.getElementById('admin-forget')
  const result = document.getElementById('admin-result')
  const LABEL = {
    pause: 'Pausing',
    resume: 'Resuming',
    run: 'Asking for a run of',
    'cancel-backfill': 'Cancelling the backfill of',
  }
  let pending = null
  const say = (text, tone) => {
    result.textContent = text
    result.className = tone
  }
  const showToken = () => {
    forget.hidden = !sessionStorage.getItem('${TOKEN_KEY}')
  }
  const ask = (job, why) => {
    pending = job
    form.hidden = false
    input.focus()
    say(why + ' (kept in this tab only)', 'muted')
  }
  async function act(job) {
    const token = sessionStorage.getItem('${TOKEN_KEY}')
    if (!token) return ask(job, 'Enter the admin token to ' + job.action + ' ' + job.net)
    say(LABEL[job.action] + ' ' + job.net + '…', 'muted')
    try {
      const url = new URL('nets/' + encodeURIComponent(job.net) + '/' + job.action, location.href)
      const by = sessionStorage.getItem('${BY_KEY}') || 'status page'
      const response = await fetch(url, {
        method: 'POST',
        cache: 'no-store',
        headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify({ by }),
      })
      const answer = await response.json().catch(() => ({}))
      const message = answer.message || (answer.error && answer.error.message) || 'HTTP ' + response.status
      if (response.status === 401 || response.status === 403) {
        sessionStorage.removeItem('${TOKEN_KEY}')
        showToken()
        return ask(job, 'Refused: ' + message + '. Enter the admin token again')
      }
      say(message, response.ok ? 'ok' : 'bad')
    } catch (error) {
      say('The request failed: ' + error.message, 'bad')
    }
    document.dispatchEvent(new Event('leasecron:refresh'))
  }
  document.addEventListener('click', (event) => {
    const button = event.target.closest && event.target.closest('button[data-action]')
    const section = button && button.closest('[data-net]')
    if (section && !button.disabled) act({ net: section.dataset.net, action: button.dataset.action })
  })
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const token = input.value.trim()
    if (!token) return
    sessionStorage.setItem('${TOKEN_KEY}', token)
    if (byInput.value.trim()) sessionStorage.setItem('${BY_KEY}', byInput.value.trim())
    input.value = ''
    form.hidden = true
    showToken()
    const job = pending
    pending = null
    if (job) act(job)
  })
  forget.addEventListener('click', () => {
    sessionStorage.removeItem('${TOKEN_KEY}')
    showToken()
    say('Token forgotten in this tab', 'muted')
  })
  showToken()
})()`
