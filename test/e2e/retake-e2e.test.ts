/**
 * A pass cut off by its holder's SIGKILL runs again under the successor (term/retake.ts: a net that retries
 * takes its cut-off passes over by default), as built worker
 * processes on the run's Mongo: the ledger's record of the slot ends `ok`, under the successor's owner and
 * fence, counted as one retake.
 */
import { fileURLToPath } from 'node:url'
import { MongoClient } from 'mongodb'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { mongoServer } from '../support/mongo.js'
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process.js'

const NETS = fileURLToPath(new URL('./fixtures/retake-nets.mjs', import.meta.url))
const running: WorkerProcess[] = []

beforeAll(() => {
  const buildError = inject('buildError')
  if (buildError) throw new Error(`dist/ could not be built: ${buildError}`)
})
afterAll(() => {
  for (const w of running) if (w.child.exitCode === null) w.child.kill('SIGKILL')
})

function worker(env: Record<string, string>): WorkerProcess {
  const w = startWorkerProcess(['run', '--config', NETS], {
    PORT: '0',
    LEASECRON_SHUTDOWN_TIMEOUT_MS: '5000',
    LEASECRON_NET_E2E_RETAKE_TTL_MS: '3000',
    LEASECRON_NET_E2E_RETAKE_RETRY_MS: '1000',
    LEASECRON_NET_E2E_RETAKE_RETRIES: '1',
    ...env,
  })
  running.push(w)
  return w
}

describe('a holder SIGKILLed mid-pass, for a net with RETRIES=1', () => {
  it('has its slot run again by the successor, recorded ok under the successor’s fence as one retake', async () => {
    const mongo = mongoServer()
    const db = `e2e_retake_${Date.now().toString(36)}`
    const env = { MONGO_URI: mongo.url, MONGO_DB: db }
    const killed = worker({ ...env, E2E_HANG: '1' })
    const cutOff = await killed.waitFor((l) => l.event === 'pass-start', 30_000, 'the first pass')
    const successor = worker(env)
    await successor.waitFor((l) => typeof l.owner === 'string', 20_000, 'the successor’s first line')
    killed.child.kill('SIGKILL')
    await killed.exited
    const again = await successor.waitFor(
      (l) => l.event === 'pass-end' && l.slot === cutOff.slot,
      30_000,
      'the cut-off slot’s pass run again',
    )
    expect(again.retake, 'the successor’s pass of the cut-off slot did not say it runs it again').toBe(1)
    const client = await new MongoClient(mongo.url).connect()
    try {
      // The pass logs its end from inside the pass: the ledger's finish lands after it, so read until it has.
      const runs = client.db(db).collection('net_runs')
      let record = null
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
        record = await runs.findOne({ _id: `e2e-retake@${String(cutOff.slot)}` } as object)
        if (record?.outcome) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(record, 'the cut-off slot’s record is not the successor’s ok run').toMatchObject({
        owner: again.owner,
        fence: again.fence,
        outcome: 'ok',
        retakes: 1,
      })
      expect(Number(again.fence)).toBeGreaterThan(Number(cutOff.fence))
    } finally {
      await client.close()
    }
    console.log(`e2e on ${mongo.kind}: slot ${String(cutOff.slot)} run again by the successor`)
  }, 90_000)
})
