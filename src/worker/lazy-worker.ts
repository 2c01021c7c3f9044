/**
 * The public createWorker: reads and checks the configuration at once (ConfigError before anything
 * starts, as always), and loads the worker itself — its metrics (prom-client), HTTP server, admin API,
 * status page and scheduler — through `import()` when `start()` is called. A configuration module that
 * imports leasecron for defineNet therefore does not compile or evaluate them (bundle-graph.test.ts), and
 * neither does `leasecron once`, which never starts a worker.
 *
 * Not the worker (worker.ts): this only delays loading it. `metrics` is the one member that needs the
 * loaded worker; read before, it throws WorkerNotStartedError. `stop()` on a worker never started loads
 * nothing (there is nothing to close), and that worker stays stopped.
 */
import type { Worker, WorkerOptions } from './worker-options.js'
import { setUpWorker } from './worker-setup.js'
import { WorkerNotStartedError } from './worker-not-started-error.js'

/**
 * Builds a worker from the environment. Throws ConfigError (exitCode 78) listing every invalid variable
 * before anything starts; the worker's modules load on `start()`.
 */
export function createWorker(options: WorkerOptions): Worker {
  const setup = setUpWorker(options)
  let loaded: Worker | undefined
  let loading: Promise<Worker> | undefined
  const load = () => {
    loading ??= import('./worker.js').then((m) => {
      loaded = m.assembleWorker(options, setup)
      return loaded
    })
    return loading
  }
  let started: Promise<void> | undefined
  let stopped: Promise<void> | undefined
  return {
    config: setup.config,
    owner: setup.owner,
    logger: setup.logger,
    get metrics() {
      if (!loaded) throw new WorkerNotStartedError(setup.owner, 'metrics')
      return loaded.metrics
    },
    get port() {
      return loaded?.port
    },
    start() {
      // Stopped before it started, it stays stopped: as a started worker does not start again after stop().
      started ??= stopped ?? load().then((worker) => worker.start())
      return started
    },
    // A worker never started opened nothing, so its stop has nothing to close and loads nothing to do it.
    stop() {
      stopped ??= started ? load().then((worker) => worker.stop()) : Promise.resolve()
      return stopped
    },
  }
}
