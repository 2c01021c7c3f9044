/**
 * createServerlessHandlers: the serverless entry's composition root. One warm runtime (warm-runtime.ts)
 * per call, shared by the two handlers it returns — `handler` for Lambda (lambda-handler.ts) and `fetch`
 * for HTTP functions (fetch-handler.ts) — so a module that calls it once at its top level keeps its Mongo
 * client, its forge token and its nets' set-up for as long as the platform keeps the instance warm.
 *
 * Not a worker: no campaign between invocations, nothing runs unless a trigger arrives.
 */
import { fetchHandler, type FetchHandler } from './fetch-handler.js'
import { type LambdaHandler, lambdaHandler } from './lambda-handler.js'
import { type WarmRuntimeOptions, warmRuntime } from './warm-runtime.js'
import { LOG_LEVELS } from '../config/log-level.js'
import { createLogger } from '../observe/logger.js'

export interface ServerlessOptions extends WarmRuntimeOptions {
  /** The net a trigger that names none runs (the event's `net`, the request's `?net=` win over it). */
  net?: string | undefined
  /**
   * The fetch handler's bearer secret; CRON_SECRET from `env` (or process.env) when absent. Without one,
   * or with one shorter than 16 characters or holding a space (a ConfigError naming where it is set), the
   * fetch handler runs nothing (500); the Lambda handler needs none (IAM decides who may invoke it).
   */
  secret?: string | undefined
}

export interface ServerlessHandlers {
  /** Lambda: `export const { handler } = createServerlessHandlers(…)`. */
  handler: LambdaHandler
  /** HTTP functions: `export const GET = handlers.fetch` (Vercel), or your framework's route. */
  fetch: FetchHandler
  /** Closes the runtime (Mongo, the forge); an instance being shut down, or a test, calls it. */
  close(): Promise<void>
}

/** The two handlers over one lazily opened, kept runtime; nothing opens until the first trigger. */
export function createServerlessHandlers(options: ServerlessOptions = {}): ServerlessHandlers {
  const runtime = warmRuntime(options)
  const env = () => options.env ?? process.env
  // Refusals happen before the runtime (and its logger) exists: they log through a logger of their own,
  // at LOG_LEVEL when it names a level (the runtime's configuration checks it properly), else `warn`.
  let doorLog: ReturnType<typeof createLogger> | undefined
  const warn = (fields: object, message: string) => {
    const level = LOG_LEVELS.find((l) => l === env().LOG_LEVEL) ?? 'warn'
    doorLog ??= options.logger ?? createLogger({ level }).child({ component: 'serverless' })
    doorLog.warn(fields, message)
  }
  return {
    handler: lambdaHandler(runtime, options.net),
    fetch: fetchHandler(runtime, {
      net: options.net,
      secret: () => options.secret ?? env().CRON_SECRET,
      secretName: options.secret === undefined ? 'CRON_SECRET' : 'the handlers’ `secret`',
      warn,
    }),
    close: () => runtime.close(),
  }
}
