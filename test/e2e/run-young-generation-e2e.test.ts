/**
 * `leasecron run`, the built bundle as `npx leasecron run` and `npm start` start it, holds its young
 * generation (src/cli/young-generation.ts) unless node was started with a flag that sizes it, and says
 * which at debug level. On the embedded defaults: no Mongo, the sandbox forge.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const running: WorkerProcess[] = []

beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
})
afterAll(async () => {
  await Promise.all(running.map((w) => w.stop('SIGKILL')))
})

/** The worker's line about its young generation, started with `env` on the embedded defaults. */
async function youngGenerationLine(env: Record<string, string>) {
  const w = startWorkerProcess(['run'], { PORT: '0', LOG_LEVEL: 'debug', ...env })
  running.push(w)
  const line = await w.waitFor(
    (l) => l.msg.startsWith('young generation'),
    30_000,
    'the young-generation line',
  )
  await w.stop('SIGTERM', 10_000)
  return line
}

describe('leasecron run and its young generation', () => {
  it('holds it at 1 MiB semi-spaces when started with no flag of its own', async () => {
    const line = await youngGenerationLine({})
    expect(
      line.youngGeneration,
      'run left the young generation to grow: a worker of many nets keeps tens of MiB more',
    ).toEqual({ held: true })
    expect(line.msg).toContain('--semi-space-growth-factor=1')
  })

  it("leaves it to the operator's NODE_OPTIONS, and names the flag", async () => {
    const line = await youngGenerationLine({ NODE_OPTIONS: '--max-semi-space-size=8' })
    expect(line.youngGeneration).toEqual({ held: false, operatorFlag: '--max-semi-space-size=8' })
    expect(line.msg).toContain('--max-semi-space-size=8')
  })
})
