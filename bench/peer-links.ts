/**
 * One peers-scenario process's links to the world that the scenario can break on its own: its own TCP
 * proxy in front of its system's store (test/chaos/tcp-proxy.ts), so one process can be cut off while the
 * others go on, and its own faketime file, so its wall clock can be moved while it runs.
 *
 * Every process starts with Debian's libfaketime preloaded, reading an offset of `+0` from its file
 * (FAKETIME_TIMESTAMP_FILE, re-read every second: FAKETIME_CACHE_DURATION) and leaving the monotonic clock
 * alone (FAKETIME_DONT_FAKE_MONOTONIC), so a skew is one write to that file, felt within a second. Without
 * libfaketime the scenario still runs, and says that it could not skew (`canSkew`).
 *
 * What it is not: a fault plan (bench/scenarios/peers.ts decides when), nor a proxy of its own.
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTcpProxy, type TcpProxy } from '../test/chaos/tcp-proxy.js'
import type { PeerSystem, StoreAddresses } from './peers-systems.js'

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1'

/** Whether this machine can skew a running process's clock (Debian's faketime package). */
export const canSkew = existsSync(LIBFAKETIME)

export interface PeerLinks {
  /** The addresses this process is given: its store's, through its own proxy. */
  addresses: StoreAddresses
  /** libfaketime's variables (empty without it). */
  clockEnv: Record<string, string>
  /** Cuts the process off from its store (`blackhole`: nothing flows either way) or heals it (`pass`). */
  partition(cut: boolean): Promise<void>
  /** Moves the process's wall clock by `seconds` from the real one (within a second). */
  skew(seconds: number): Promise<void>
  close(): Promise<void>
}

/** The store address a system's processes dial, as host and port. */
function storeTarget(system: PeerSystem, addresses: StoreAddresses): { host: string; port: number } {
  if (system.store === 'redis') return { host: '127.0.0.1', port: addresses.redisPort! }
  const url = new URL(
    system.store === 'postgres' ? addresses.postgresUrl!('postgres') : addresses.mongoUrl!(system.name),
  )
  return { host: url.hostname, port: Number(url.port) }
}

const throughPort = (href: string, port: number) => {
  const url = new URL(href)
  url.port = String(port)
  return url.href
}

/** The same addresses, with this system's store reached through `port`. */
function addressesThrough(system: PeerSystem, addresses: StoreAddresses, port: number): StoreAddresses {
  if (system.store === 'redis') return { ...addresses, redisPort: port }
  if (system.store === 'postgres')
    return { ...addresses, postgresUrl: (db) => throughPort(addresses.postgresUrl!(db), port) }
  return { ...addresses, mongoUrl: (label) => throughPort(addresses.mongoUrl!(label), port) }
}

/** Opens a process's proxy and clock file; `close` removes both. */
export async function openPeerLinks(system: PeerSystem, addresses: StoreAddresses): Promise<PeerLinks> {
  const proxy: TcpProxy = await startTcpProxy(storeTarget(system, addresses), {
    wire: system.store === 'ferret' ? 'mongo' : 'raw',
  })
  const dir = await mkdtemp(join(tmpdir(), 'leasecron-peers-clock-'))
  const clockFile = join(dir, 'faketimerc')
  await writeFile(clockFile, '+0\n')
  const clockEnv: Record<string, string> = canSkew
    ? {
        LD_PRELOAD: LIBFAKETIME,
        FAKETIME_TIMESTAMP_FILE: clockFile,
        FAKETIME_CACHE_DURATION: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      }
    : {}
  return {
    addresses: addressesThrough(system, addresses, proxy.port),
    clockEnv,
    partition: (cut) => proxy.setMode(cut ? { kind: 'blackhole' } : { kind: 'pass' }),
    skew: (seconds) => writeFile(clockFile, `${seconds >= 0 ? '+' : ''}${seconds}\n`),
    async close() {
      await proxy.close().catch(() => undefined)
      await rm(dir, { recursive: true, force: true })
    },
  }
}
