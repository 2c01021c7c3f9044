/**
 * A custom net in your own repository: its own lease and its own option, next to the built-in nets.
 *
 *   npx leasecron once stale-pulls --config ./worker.config.ts      (one pass, then exit)
 *   npx leasecron run --config ./worker.config.ts                   (the worker)
 *
 * Without GitHub App variables it runs against the built-in sandbox; `LEASECRON_NET_STALE_PULLS_DAYS=30`
 * sets its option. Its own test, one pass against the sandbox with `runOnePass`: stale-pulls.test.ts.
 */
import { defineLease, defineNet, integerOption, type WorkerFileConfig } from 'leasecron'
import { LEASES } from 'leasecron/nets'

/** The lease that elects one replica to run the net: registered beside the built-in ones. */
export const STALE_PULLS_LEASE = defineLease('stale-pulls', 'one replica reports stale pull requests')

const DAY_MS = 24 * 60 * 60 * 1000

/** Logs every open pull request that nobody has updated for `DAYS` days. Read-only, so idempotent. */
export const stalePulls = defineNet({
  name: 'stale-pulls',
  lease: STALE_PULLS_LEASE.name,
  schedule: '*/10 * * * *',
  description: 'reports open pull requests not updated for DAYS days',
  options: { DAYS: integerOption(14, { min: 1, max: 365 }) },
  setup: () => undefined,
  term: (_resources, { options }) => {
    return async ({ forge, log, signal, now }) => {
      // The body's shape is the caller's to name (leasecron does not check it): the fields read here.
      const { data } = await forge.request<{ repositories: { full_name: string }[] }>(
        'GET /installation/repositories',
        { per_page: 100, request: { signal } },
      )
      const cutoff = now().getTime() - options.DAYS * DAY_MS
      let stale = 0
      for (const repository of data.repositories) {
        const [owner, repo] = repository.full_name.split('/') as [string, string]
        const pulls = await forge.request<{ number: number; updated_at: string }[]>(
          'GET /repos/{owner}/{repo}/pulls',
          {
            owner,
            repo,
            state: 'open',
            per_page: 100,
            request: { signal },
          },
        )
        for (const pull of pulls.data) {
          if (Date.parse(pull.updated_at) >= cutoff) continue
          stale += 1
          log.info(
            { repository: repository.full_name, pull: pull.number, updatedAt: pull.updated_at },
            'stale pull request',
          )
        }
      }
      log.info({ repositories: data.repositories.length, stale, days: options.DAYS }, 'stale pulls counted')
    }
  },
})

const config: WorkerFileConfig = {
  nets: [stalePulls],
  leases: [...LEASES, STALE_PULLS_LEASE],
}

export default config
