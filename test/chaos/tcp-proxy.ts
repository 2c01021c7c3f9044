/**
 * A small TCP proxy of our own (node:net) in front of Mongo, whose behaviour the chaos suite switches at
 * run time. One proxy per worker process, all in front of the same server, makes "only the holder cut off"
 * a matter of switching one proxy.
 *
 * Modes:
 * - `pass`: forwards both ways.
 * - `delay`: forwards both ways, holding each client→server chunk back `ms` (so every round trip gains
 *   `ms`); order is kept.
 * - `blackhole`: accepts and keeps connections but forwards nothing either way (reading stops, so bytes
 *   wait in the socket buffers as in a partition); switching back to `pass` lets them flow, as TCP
 *   retransmission would after the partition heals.
 * - `reset`: destroys every open connection with a TCP RST, and resets every new one on accept.
 * - `refuse`: stops listening, so new connections are refused (ECONNREFUSED); open ones are left alone.
 *
 * `dropNextResponse()` discards the next whole Mongo wire message from server to client (framed by its
 * length header, so the stream stays in step): the request lands, its answer is lost. A proxy in front of
 * another protocol (the peers benchmark's Redis and PostgreSQL) is opened with `{ wire: 'raw' }`: its
 * answers pass as they come, unframed, and it cannot drop one.
 */
import net from 'node:net'

export type ProxyMode =
  | { kind: 'pass' }
  | { kind: 'delay'; ms: number }
  | { kind: 'blackhole' }
  | { kind: 'reset' }
  | { kind: 'refuse' }

export interface TcpProxy {
  /** The loopback port clients connect to (stable across `refuse` and back). */
  readonly port: number
  readonly mode: ProxyMode
  setMode(mode: ProxyMode): Promise<void>
  /** Arms the loss of the next server→client message (the next answer of any connection). */
  dropNextResponse(): void
  /** Connections accepted, reset, and answers dropped so far. */
  stats(): { accepted: number; reset: number; dropped: number; open: number }
  close(): Promise<void>
}

interface Pair {
  client: net.Socket
  server: net.Socket
  /** Server→client bytes of a message not yet complete (framing for dropNextResponse). */
  pending: Buffer
  /** When a client→server chunk may next be released (delay mode keeps order). */
  releaseAt: number
}

const LOOPBACK = '127.0.0.1'

export interface TcpProxyOptions {
  /** `mongo` (the default): answers are framed as Mongo wire messages; `raw`: bytes pass as they come. */
  wire?: 'mongo' | 'raw'
}

/** Starts a proxy on a free loopback port forwarding to `target`. */
export async function startTcpProxy(
  target: { host: string; port: number },
  options: TcpProxyOptions = {},
): Promise<TcpProxy> {
  const raw = options.wire === 'raw'
  let mode: ProxyMode = { kind: 'pass' }
  const pairs = new Set<Pair>()
  let dropArmed = false
  const counts = { accepted: 0, reset: 0, dropped: 0 }

  const cut = (pair: Pair) => {
    pairs.delete(pair)
    if (!pair.client.destroyed) pair.client.resetAndDestroy()
    if (!pair.server.destroyed) pair.server.resetAndDestroy()
  }

  const flowing = () => mode.kind === 'pass' || mode.kind === 'delay'

  const onConnection = (client: net.Socket) => {
    counts.accepted++
    if (mode.kind === 'reset') {
      counts.reset++
      client.resetAndDestroy()
      return
    }
    const server = net.connect({ host: target.host, port: target.port })
    const pair: Pair = { client, server, pending: Buffer.alloc(0), releaseAt: 0 }
    pairs.add(pair)
    client.setNoDelay(true)
    server.setNoDelay(true)
    if (!flowing()) {
      client.pause()
      server.pause()
    }
    const end = () => {
      if (!pairs.has(pair)) return
      pairs.delete(pair)
      client.destroy()
      server.destroy()
    }
    client.on('error', end)
    server.on('error', end)
    client.on('close', end)
    server.on('close', end)
    client.on('data', (chunk: Buffer) => {
      if (mode.kind === 'delay') {
        const at = Math.max(Date.now() + mode.ms, pair.releaseAt)
        pair.releaseAt = at
        setTimeout(() => server.destroyed || server.write(chunk), at - Date.now())
      } else {
        server.write(chunk)
      }
    })
    server.on('data', (chunk: Buffer) => {
      if (raw) return void client.write(chunk)
      pair.pending = pair.pending.length === 0 ? chunk : Buffer.concat([pair.pending, chunk])
      forwardWholeMessages(pair)
    })
  }

  /** Forwards every complete wire message in `pending` (dropping one if armed); keeps the rest. */
  const forwardWholeMessages = (pair: Pair) => {
    let buffer = pair.pending
    while (buffer.length >= 4) {
      const length = buffer.readInt32LE(0)
      if (length < 16 || buffer.length < length) break
      const message = buffer.subarray(0, length)
      buffer = buffer.subarray(length)
      if (dropArmed) {
        dropArmed = false
        counts.dropped++
        continue
      }
      pair.client.write(message)
    }
    pair.pending = buffer.length > 0 ? Buffer.from(buffer) : Buffer.alloc(0)
  }

  let server = net.createServer(onConnection)
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, LOOPBACK, () => {
        server.off('error', reject)
        resolve((server.address() as net.AddressInfo).port)
      })
    })
  const port = await listen(0)
  let listening = true

  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve()
      listening = false
      server.close(() => resolve())
    })

  return {
    port,
    get mode() {
      return mode
    },
    async setMode(next) {
      mode = next
      if (next.kind === 'refuse') {
        await stopListening()
        return
      }
      if (!listening) {
        server = net.createServer(onConnection)
        await listen(port)
        listening = true
      }
      if (next.kind === 'reset') {
        for (const pair of [...pairs]) {
          counts.reset++
          cut(pair)
        }
      } else if (next.kind === 'blackhole') {
        for (const pair of pairs) {
          pair.client.pause()
          pair.server.pause()
        }
      } else {
        for (const pair of pairs) {
          pair.client.resume()
          pair.server.resume()
        }
      }
    },
    dropNextResponse() {
      if (raw) throw new Error('tcp-proxy: a raw proxy cannot drop a response (it does not frame messages)')
      dropArmed = true
    },
    stats: () => ({ ...counts, open: pairs.size }),
    async close() {
      for (const pair of [...pairs]) cut(pair)
      await stopListening()
    },
  }
}
