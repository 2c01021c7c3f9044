/**
 * capPerAddress: at most so many open connections from one client address on a server; one past it is
 * closed as it is accepted, unanswered.
 *
 * Why: the server's own cap (`maxConnections`) is shared by every client, and a connection holds its place
 * from its first byte, before its request line says which route it wants, so 64 slow-header connections
 * from one address took every place and the kubelet's /healthz probes were refused (63 of 79). With a
 * per-address cap below the server's, one address leaves the rest to the others: the probes come from the
 * node's address, the scrapes from Prometheus's, and each has its own allowance.
 *
 * What it is not: a rate limit (a closed connection frees its place at once) or a defence against many
 * addresses at once (the headers timeout still bounds how long each holds a place, http-limits.ts). An
 * address is the socket's remote address as the kernel gives it: clients behind one proxy share one.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'

/** Counts `server`'s open connections per remote address and closes any beyond `max` from one address. */
export function capPerAddress(server: Server, max: number): void {
  const open = new Map<string, number>()
  // Added after the server's own listener: a connection closed here is one the server already knows,
  // and its own close handling cleans up after it.
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    const count = open.get(address) ?? 0
    if (count >= max) {
      socket.destroy()
      return
    }
    open.set(address, count + 1)
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1
      if (left > 0) open.set(address, left)
      else open.delete(address)
    })
  })
}
