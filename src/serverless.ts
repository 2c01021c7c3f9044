/**
 * `leasecron/serverless`: a function platform's scheduled trigger turned into one claimed slot — the very
 * `leasecron once` path (one attempt at the lease, the slot claimed in the run ledger, the pass, the
 * release) without a shell or a process per trigger. One factory, two handlers over one kept runtime:
 *
 * - `handler(event, context)` for AWS Lambda invoked by EventBridge Scheduler (the event's `time`);
 * - `fetch(request)` for HTTP functions called by Google Cloud Scheduler (`X-CloudScheduler-ScheduleTime`)
 *   or Vercel Cron (`GET` with `Authorization: Bearer <CRON_SECRET>`), answering the `once --json` object.
 *
 * A redelivered or late trigger runs its slot at most once; a slot older than the net's catch-up window
 * is recorded `missed`. The Mongo client and the forge's token stay open between warm invocations. Its
 * own entry (not in `leasecron`) so that a worker never loads it.
 *
 * ```ts
 * // handler.mjs (Lambda) — the configuration module is read on the first invocation
 * import { createServerlessHandlers } from 'leasecron/serverless'
 * export const { handler } = createServerlessHandlers({ config: './worker.config.mjs' })
 * ```
 */
export {
  createServerlessHandlers,
  type ServerlessHandlers,
  type ServerlessOptions,
} from './serverless/serverless-handlers.js'
export type { LambdaContext, LambdaHandler } from './serverless/lambda-handler.js'
export { type FetchHandler, SCHEDULE_TIME_HEADER } from './serverless/fetch-handler.js'
export { ServerlessError, type ServerlessErrorCode } from './serverless/serverless-error.js'
export type { OnceOutcome, OnceResult } from './term/one-slot.js'
