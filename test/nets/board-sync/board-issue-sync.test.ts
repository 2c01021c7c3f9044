/**
 * The board issue sync against the sandbox over HTTP with a real forge client: create, update, close,
 * author-association columns, board-owned fields preserved, a watermark per repository with one
 * repository failing, pull requests skipped, paging — counted by the sandbox itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { withLane } from '../../../src/forge/lane.js'
import { BOARD_ISSUE_SYNC_LEASE } from '../../../src/leases.js'
import {
  boardIssueSync,
  boardIssueSyncOptions,
  createBoardIssueSync,
} from '../../../src/nets/board-sync/board-issue-sync.js'
import { nextWatermark, runBoardSyncPass } from '../../../src/nets/board-sync/board-sync-pass.js'
import { countRequests } from '../../../src/sandbox/sandbox-stats.js'
import { cardId } from '../../../src/nets/board-sync/card.js'
import { MemoryBoardStore } from '../../../src/nets/board-sync/memory-board-store.js'
import { runOnePass } from '../../../src/testing.js'
import { captureLogs } from '../../support/log-capture.js'
import { startSandboxHarness, type SandboxHarness } from '../../support/sandbox-harness.js'

const ISSUES = 'GET /repos/:owner/:repo/issues'
const REPOS = 'GET /installation/repositories'
const MIN = 60_000

// The sandbox's clock, moved by the tests: issues it stamps and the passes' instants share it.
let wall = Math.floor(Date.now() / 1000) * 1000
const clock = () => new Date(wall)
const hoursAgo = (h: number) => new Date(wall - h * 3_600_000).toISOString()

let h: SandboxHarness
beforeAll(async () => {
  h = await startSandboxHarness({
    clock,
    fixture: {
      repos: [
        {
          owner: 'acme',
          name: 'widgets',
          pulls: [{ number: 1, title: 'A pull request', updatedAt: hoursAgo(3) }],
          issues: [
            {
              number: 2,
              title: 'Owner bug',
              authorAssociation: 'OWNER',
              user: 'octocat',
              labels: ['bug'],
              updatedAt: hoursAgo(5),
            },
            {
              number: 3,
              title: 'Member idea',
              authorAssociation: 'MEMBER',
              user: 'mona',
              updatedAt: hoursAgo(4),
            },
            {
              number: 4,
              title: 'Collaborator',
              authorAssociation: 'COLLABORATOR',
              user: 'hubot',
              updatedAt: hoursAgo(4),
            },
            {
              number: 5,
              title: 'Drive-by',
              authorAssociation: 'CONTRIBUTOR',
              user: 'drive-by',
              updatedAt: hoursAgo(2),
            },
            {
              number: 6,
              title: 'Stranger',
              authorAssociation: 'NONE',
              user: 'stranger',
              updatedAt: hoursAgo(2),
            },
            {
              number: 7,
              title: 'Old and done',
              state: 'closed',
              authorAssociation: 'NONE',
              user: 'stranger',
              updatedAt: hoursAgo(1),
            },
          ],
        },
        {
          owner: 'acme',
          name: 'gadgets',
          issues: [{ number: 1, title: 'Gadget', authorAssociation: 'MEMBER', updatedAt: hoursAgo(1) }],
        },
        {
          owner: 'acme',
          name: 'broken',
          issues: [{ number: 1, title: 'Unreachable', updatedAt: hoursAgo(1) }],
        },
      ],
    },
  })
})
afterAll(async () => {
  await h?.close()
})

function pass(store: MemoryBoardStore, repos: string[], log = captureLogs().logger) {
  return withLane('board-issue-sync', () =>
    runBoardSyncPass({ forge: h.forge.octokit, store, repos, startedAt: clock(), log }),
  )
}

describe('board issue sync', () => {
  it('declares its lease, schedule and options', () => {
    expect(boardIssueSync).toMatchObject({
      name: 'board-issue-sync',
      lease: BOARD_ISSUE_SYNC_LEASE.name,
      schedule: '*/5 * * * *',
    })
    expect(boardIssueSyncOptions.REPOS.schema.parse('acme/a, acme/b,acme/a')).toEqual(['acme/a', 'acme/b'])
    expect(boardIssueSyncOptions.REPOS.schema.parse(undefined)).toEqual([])
  })

  it('creates one card per issue, in the column its author association or state calls for, skipping pulls', async () => {
    const store = new MemoryBoardStore()
    h.reset()
    const started = clock()
    const report = await pass(store, ['acme/widgets'])
    expect(h.requests()).toEqual({ [ISSUES]: 1 })
    expect(report.repos).toEqual([
      {
        repo: 'acme/widgets',
        ok: true,
        pages: 1,
        issues: 6,
        created: 6,
        refreshed: 0,
        movedToDone: 0,
        skippedPulls: 1,
      },
    ])
    const cards = await store.listCards('acme/widgets')
    expect(cards.map((c) => [c.number, c.column])).toEqual([
      [2, 'triage'],
      [3, 'triage'],
      [4, 'triage'],
      [5, 'needs-approval'],
      [6, 'needs-approval'],
      [7, 'done'],
    ])
    expect(await store.getCard(cardId('acme/widgets', 2))).toMatchObject({
      repo: 'acme/widgets',
      title: 'Owner bug',
      state: 'open',
      labels: ['bug'],
      author: 'octocat',
      authorAssociation: 'OWNER',
      url: `${h.sandbox.url}/acme/widgets/issues/2`,
      boardLabels: [],
      columnSetBy: 'sync',
      createdAt: started,
    })
    expect(
      await store.getWatermark('acme/widgets'),
      'a one-page list moved its watermark: the next pass would pay for a URL never asked',
    ).toBeUndefined()
  })

  it('updates title and labels, moves a later close to done, and never touches what the board owns', async () => {
    const store = new MemoryBoardStore()
    await pass(store, ['acme/widgets'])
    const person = cardId('acme/widgets', 3)
    const labelled = cardId('acme/widgets', 2)
    await store.moveCard(person, { from: 'triage', to: 'needs-approval', by: 'person', now: clock() })
    await store.setBoardLabels(labelled, ['board:priority'])
    wall += 5 * MIN
    h.sandbox.store.updateIssue('acme', 'widgets', 2, {
      title: 'Owner bug, retitled',
      labels: ['bug', 'p0', 'board:spoofed'],
      state: 'closed',
    })
    h.sandbox.store.updateIssue('acme', 'widgets', 3, { state: 'closed' })
    h.sandbox.store.updateIssue('acme', 'widgets', 5, { state: 'closed' })
    wall += MIN
    h.reset()
    const report = await pass(store, ['acme/widgets'])
    expect(h.requests()).toEqual({ [ISSUES]: 1 })
    // The list's URL is the first pass's (one page kept it): all six issues come back, the three updated
    // ones are written.
    expect(report.repos[0]).toMatchObject({ ok: true, issues: 6, created: 0, refreshed: 3, movedToDone: 2 })
    expect(await store.getCard(labelled)).toMatchObject({
      title: 'Owner bug, retitled',
      state: 'closed',
      labels: ['bug', 'p0'],
      boardLabels: ['board:priority'],
      column: 'done',
    })
    // A person set this column: closing the issue leaves it where they put it.
    expect(await store.getCard(person)).toMatchObject({
      state: 'closed',
      column: 'needs-approval',
      columnSetBy: 'person',
    })
    expect(await store.getCard(cardId('acme/widgets', 5))).toMatchObject({
      column: 'done',
      columnSetBy: 'sync',
    })

    // The next pass reads them again (the same URL, answered from the cache) and does nothing twice.
    wall += 5 * MIN
    const again = await pass(store, ['acme/widgets'])
    expect(again.repos[0]).toMatchObject({ issues: 6, created: 0, refreshed: 0, movedToDone: 0 })
    expect(await store.getCard(person)).toMatchObject({ column: 'needs-approval', columnSetBy: 'person' })
  })

  it('keeps a quiet repository’s list URL from pass to pass, so each later pass costs a free 304', async () => {
    const store = new MemoryBoardStore()
    await pass(store, ['acme/gadgets'])
    h.reset()
    for (let i = 0; i < 3; i++) {
      wall += 5 * MIN
      expect((await pass(store, ['acme/gadgets'])).repos[0]).toMatchObject({ ok: true, created: 0 })
    }
    expect(
      await store.getWatermark('acme/gadgets'),
      'a moving watermark asks a new URL the pass after',
    ).toBeUndefined()
    expect(
      countRequests(h.sandbox.stats(), { route: ISSUES, status: 304 }),
      'a quiet repository paid a point per pass for nothing new',
    ).toBe(3)
    expect(countRequests(h.sandbox.stats(), { route: ISSUES, status: 200 })).toBe(0)
  })

  it('writes a second update made in the same second as the first, though both carry one updated_at', async () => {
    const store = new MemoryBoardStore()
    await pass(store, ['acme/gadgets'])
    wall += 5 * MIN
    h.sandbox.store.updateIssue('acme', 'gadgets', 1, { title: 'Gadget, first edit' })
    await pass(store, ['acme/gadgets'])
    h.sandbox.store.updateIssue('acme', 'gadgets', 1, { title: 'Gadget, second edit' }) // the same second
    wall += 5 * MIN
    expect((await pass(store, ['acme/gadgets'])).repos[0]).toMatchObject({ issues: 1, refreshed: 1 })
    expect((await store.getCard(cardId('acme/gadgets', 1)))?.title, 'the second edit was lost').toBe(
      'Gadget, second edit',
    )
    wall += 5 * MIN
    expect(
      (await pass(store, ['acme/gadgets'])).repos[0],
      'an unchanged issue read again at the watermark was written again',
    ).toMatchObject({ issues: 1, refreshed: 0 })
    h.sandbox.store.updateIssue('acme', 'gadgets', 1, { title: 'Gadget' }) // as the later tests know it
  })

  it('moves the watermark to the newest update it read, never past the pass’s start minus the overlap', () => {
    const start = new Date('2026-12-01T12:00:00Z')
    expect(nextWatermark(new Date('2026-12-01T09:30:00Z'), start)).toEqual(new Date('2026-12-01T09:30:00Z'))
    expect(
      nextWatermark(new Date('2026-12-01T11:59:30Z'), start),
      'an issue updated during the pass on a page already read would be lost',
    ).toEqual(new Date('2026-12-01T11:59:00Z'))
  })

  it('keeps a watermark per repository: one failing repository stops neither the others nor holds theirs', async () => {
    const store = new MemoryBoardStore()
    const capture = captureLogs()
    const fault = await h.sandbox.admin.addFault({
      kind: 'status',
      status: 500,
      path: '/repos/acme/broken/issues',
    })
    const report = await pass(store, ['acme/broken', 'acme/widgets', 'acme/gadgets'], capture.logger)
    expect(report.repos.map((r) => [r.repo, r.ok])).toEqual([
      ['acme/broken', false],
      ['acme/widgets', true],
      ['acme/gadgets', true],
    ])
    expect(report.repos[0]?.error).toMatch(/500/)
    expect(await store.getWatermark('acme/broken')).toBeUndefined()
    expect(
      (await store.listCards('acme/gadgets')).map((c) => c.title),
      'the failure stopped the others',
    ).toEqual(['Gadget'])
    expect(capture.matching('warn', 'a repository failed')[0]?.fields.repo).toBe('acme/broken')
    await h.sandbox.admin.clearFaults(fault)
    wall += 5 * MIN
    const next = await pass(store, ['acme/broken', 'acme/widgets', 'acme/gadgets'])
    expect(next.repos[0]).toMatchObject({ repo: 'acme/broken', ok: true, created: 1 })
  })

  it('pages through 100 issues at a time', async () => {
    h.sandbox.store.addRepo('acme', 'busy')
    for (let i = 0; i < 250; i++) h.sandbox.store.addIssue('acme', 'busy', { authorAssociation: 'MEMBER' })
    const store = new MemoryBoardStore()
    h.reset()
    const report = await pass(store, ['acme/busy'])
    expect(h.requests()).toEqual({ [ISSUES]: 3 })
    expect(report.repos[0]).toMatchObject({ pages: 3, issues: 250, created: 250 })
    expect(new Set((await store.listCards('acme/busy')).map((c) => c.id)).size).toBe(250)
    const newest = Math.max(
      ...[...(h.sandbox.store.repo('acme', 'busy')?.issues.values() ?? [])].map((i) =>
        new Date(i.updatedAt).getTime(),
      ),
    )
    expect(
      await store.getWatermark('acme/busy'),
      'a list past one page kept its watermark: every change would re-read all its pages',
    ).toEqual(nextWatermark(new Date(newest), clock()))
  })

  it('syncs every repository the installation can access when none is configured, through the net in its lane', async () => {
    const store = new MemoryBoardStore()
    const net = createBoardIssueSync({ store })
    h.reset()
    // The harness's forge, whose token was minted before the tests moved the sandbox's clock on.
    const run = await runOnePass(net, { forge: h.forge, slot: clock(), now: clock })
    expect(run.record, run.error).toMatchObject({ outcome: 'ok' })
    const repos = h.sandbox.store.repos().length
    expect(h.requests()).toEqual({ [REPOS]: 1, [ISSUES]: repos + 2 }) // acme/busy needs 3 pages
    expect(run.record?.requests, 'the pass’s requests were not charged to its lane').toEqual({
      'board-issue-sync': 1 + repos + 2,
    })
    expect((await store.listCards('acme/gadgets')).map((c) => c.title)).toEqual(['Gadget'])
    expect(run.log.find((l) => l.msg.startsWith('board issue sync:'))?.msg).toMatch(/card\(s\) created/)
  })
})
