/**
 * The board issue sync net (lease `board-issue-sync`, the second elected net): every five minutes
 * the elected replica reads the issues updated since each repository's watermark and keeps one board
 * card per issue. The pass is in `board-sync-pass.ts`; this file declares the net — options, stores, term.
 *
 * Without a database the net keeps a MemoryBoardStore; pass `store` to `createBoardIssueSync` to share
 * one with an embedder or the demo.
 */
import { BOARD_ISSUE_SYNC_LEASE } from '../../leases.js'
import { defineNet } from '../net.js'
import { repositoryListOption } from '../options.js'
import type { BoardStore } from './board-store.js'
import { runBoardSyncPass } from './board-sync-pass.js'
import { MemoryBoardStore } from './memory-board-store.js'
import { MongoBoardStore } from './mongo-board-store.js'

/** The net's name: its lane and `LEASECRON_NET_BOARD_ISSUE_SYNC_*`. */
export const BOARD_ISSUE_SYNC = 'board-issue-sync'

/** The net's options, keyed by environment suffix. */
export const boardIssueSyncOptions = {
  REPOS: repositoryListOption(),
}

/** Overrides for `createBoardIssueSync`. */
export interface BoardIssueSyncOverrides {
  /** Use this store instead of the worker's database (or a fresh memory twin). */
  store?: BoardStore
}

/**
 * Declares the board issue sync net. Setup opens the board store (`overrides.store`, else MongoBoardStore
 * on the worker's database with its index, else a MemoryBoardStore); the term keeps no state — the
 * watermarks are in the store, so a new term carries on where the last one stopped.
 */
export function createBoardIssueSync(overrides: BoardIssueSyncOverrides = {}) {
  return defineNet({
    name: BOARD_ISSUE_SYNC,
    lease: BOARD_ISSUE_SYNC_LEASE.name,
    // Each installation syncs the repositories it can access, on its own budget.
    scope: 'installation',
    schedule: '*/5 * * * *',
    description:
      'keeps one board card per forge issue: new issues to triage or needs-approval, closed ones to done',
    options: boardIssueSyncOptions,
    async setup({ db, log }): Promise<{ store: BoardStore }> {
      if (overrides.store !== undefined) return { store: overrides.store }
      if (db !== undefined) {
        const store = new MongoBoardStore(db)
        await store.ensureIndexes()
        return { store }
      }
      log.info({}, 'board issue sync: no database; the board lives in this process only')
      return { store: new MemoryBoardStore() }
    },
    term(resources, { options }) {
      return async (pass) => {
        const report = await runBoardSyncPass({
          forge: pass.forge,
          store: resources.store,
          repos: options.REPOS,
          startedAt: pass.startedAt,
          signal: pass.signal,
          log: pass.log,
        })
        const sum = (key: 'created' | 'refreshed' | 'movedToDone' | 'pages') =>
          report.repos.reduce((n, r) => n + r[key], 0)
        const failed = report.repos.filter((r) => !r.ok).map((r) => r.repo)
        pass.log.info(
          { ...report, failed },
          `board issue sync: ${report.repos.length} repositor${report.repos.length === 1 ? 'y' : 'ies'}, ` +
            `${sum('pages')} page(s), ${sum('created')} card(s) created, ${sum('refreshed')} refreshed, ` +
            `${sum('movedToDone')} moved to done${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
        )
      }
    },
  })
}

/** The board issue sync with its default stores: what `worker.config.ts` lists. */
export const boardIssueSync = createBoardIssueSync()
