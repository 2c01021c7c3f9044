/**
 * A command naming a net that is not configured: the usage error lists the nets and, for a mistyped one,
 * says which it most likely meant; a name near none gets no guess. In process, on the built-in nets.
 */
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli.js'

async function cli(args: string[]) {
  const err: string[] = []
  const code = await main(args, { out: () => {}, err: (l) => err.push(l), env: {} })
  return { code, err: err.join('\n') }
}

describe('a net name that is not configured', () => {
  it('is refused with exit 64 listing the nets and the one a typo most likely meant', async () => {
    for (const command of ['once', 'history', 'pause']) {
      const typo = await cli([command, 'merge-gate-sweper'])
      expect(typo.code, typo.err).toBe(64)
      expect(typo.err).toContain(
        `leasecron ${command}: expected one of merge-gate-sweeper, board-issue-sync; got merge-gate-sweper — did you mean merge-gate-sweeper?`,
      )
    }
  })

  it('guesses nothing for a name near no net', async () => {
    const far = await cli(['once', 'stale-pulls'])
    expect(far.code).toBe(64)
    expect(far.err).toContain('expected one of merge-gate-sweeper, board-issue-sync; got stale-pulls')
    expect(far.err).not.toContain('did you mean')
  })
})
