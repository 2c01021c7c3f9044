/**
 * Redis for the peers scenario: Debian's `redis-server` in a temporary directory on a free loopback port,
 * with the settings BullMQ's "Going to production" page asks for (`maxmemory-policy noeviction`, AOF
 * persistence so a restart keeps the queue). Operations are `INFO commandstats` calls, the INFO calls this
 * bench makes taken out. Not a Redis manager: one server, killed and restarted on its data.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { freePort, type OpCounts, type PeerStore, waitUntil } from './peer-store.js'

export const REDIS_SERVER = '/usr/bin/redis-server'

/** `INFO commandstats` as calls per command; the `info` entry (this bench's own reads) is dropped. */
function parseCommandStats(text: string): OpCounts {
  const counts: OpCounts = {}
  for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') counts[match[1]!] = Number(match[2])
  }
  return counts
}

/** Starts redis-server; throws (with the reason) when it cannot, so the scenario skips BullMQ saying why. */
export async function startRedis(): Promise<PeerStore & { port: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-peers-redis-'))
  const port = await freePort()
  const version = execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).trim()
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes']
  args.push('--maxmemory-policy', 'noeviction', '--save', '', '--protected-mode', 'yes')
  let child: ChildProcess | undefined
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 })
  client.on('error', () => undefined)
  const launch = async () => {
    child = spawn(REDIS_SERVER, args, { stdio: 'ignore' })
    await waitUntil('redis-server', () => client.ping())
  }
  const kill = async () => {
    const c = child
    if (!c || c.exitCode !== null || c.signalCode !== null) return
    const gone = new Promise((r) => c.once('exit', r))
    c.kill('SIGKILL')
    await gone
  }
  await launch()
  return {
    port,
    description: version.replace(/ sha=.*$/, ''),
    settings: 'appendonly yes (fsync everysec), save "", maxmemory-policy noeviction, bind 127.0.0.1',
    async crashAndRestart(downMs) {
      await kill()
      await new Promise((r) => setTimeout(r, downMs))
      await launch()
    },
    ops: async () => parseCommandStats(String(await client.info('commandstats'))),
    async stop() {
      client.disconnect()
      await kill()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
