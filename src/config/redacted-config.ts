/**
 * The configuration as it may be shown: secrets replaced, durations written with their unit. For
 * `leasecron config` and the worker's start-up log line.
 */
import { formatDuration, parseDuration } from '../durations.js'
import type { NetDefinition } from '../nets/net.js'
import { describePingUrl } from './ping-url.js'
import { scrubSecrets } from './scrub.js'
import { otherUriDatabase } from './store-section.js'
import type { ForgeChoice, WorkerConfig } from './worker-config.js'

/**
 * The configuration with secrets replaced, for `leasecron config` and the start-up log. Durations of
 * the nets' options are written with their unit (`60m`, `192h`), as the variables take them, so the
 * output can be pasted back.
 */
export function redactedConfig(config: WorkerConfig): Record<string, unknown> {
  return {
    mongo: config.mongo ? redactedMongo(config.mongo) : '(none: in-memory store)',
    workerId: config.workerId ?? '(host name)',
    port: config.port,
    bindAddress: config.bindAddress,
    logLevel: config.logLevel,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
    forge: redactedForge(config.forge),
    publicUrl: config.publicUrl ?? '(unset)',
    statusPage: config.statusPage,
    adminApi: config.adminToken === undefined ? 'off' : 'on (LEASECRON_ADMIN_TOKEN set: [redacted])',
    runHistory: config.runHistory,
    forgeCacheMb: config.forgeCacheMb,
    forgeReserve:
      config.forgeReserve.kind === 'points'
        ? String(config.forgeReserve.points)
        : `${Math.round(config.forgeReserve.fraction * 10_000) / 100}%`,
    installationsRefresh: formatDuration(config.installationsRefreshMs),
    clockGuard: config.replicas.clockGuard ? 'on' : 'off',
    fairShare: config.replicas.fairShare ? 'on' : 'off',
    fairShareSlack: config.replicas.shareSlack,
    nets: config.nets.map((n) => ({
      name: n.definition.name,
      lease: n.definition.lease,
      enabled: n.enabled,
      schedule: n.schedule,
      dayMatch: n.dayMatch ?? '(unset)',
      startAt: n.startAt?.toISOString() ?? '(unset)',
      endAt: n.endAt?.toISOString() ?? '(unset)',
      maxRuns: n.maxRuns ?? '(unset)',
      timeZone: n.timeZone,
      catchUp: n.catchUp,
      catchUpWindow: formatDuration(n.catchUpWindowMs),
      catchUpMax: n.catchUpMax,
      overlap: n.overlap,
      jitter: n.jitterMs === 0 ? '(unset)' : formatDuration(n.jitterMs),
      timeout: formatDuration(n.attempts.timeoutMs),
      retries: n.attempts.retries,
      retryBackoff: formatDuration(n.attempts.retryBackoffMs),
      retakes: n.attempts.retakes,
      minDuration: n.minDurationMs === undefined ? '(unset)' : formatDuration(n.minDurationMs),
      maxDuration: n.maxDurationMs === undefined ? '(unset)' : formatDuration(n.maxDurationMs),
      pingUrl: n.pingUrl === undefined ? '(unset)' : describePingUrl(n.pingUrl),
      ...n.pacing,
      options: Object.fromEntries(
        Object.entries(n.options).map(([k, v]) => [k, optionText(n.definition.options[k], v)]),
      ),
    })),
  }
}

/** The store section, with a note when MONGO_URI's path names a database the worker does not use. */
function redactedMongo(mongo: NonNullable<WorkerConfig['mongo']>): Record<string, string> {
  const uriDb = otherUriDatabase(mongo.uri, mongo.db)
  return {
    uri: scrubSecrets(mongo.uri),
    db: mongo.db,
    ...(uriDb === undefined
      ? {}
      : {
          note: `MONGO_URI names the database ${JSON.stringify(uriDb)}, which the driver uses only to authenticate (authSource); the worker's collections go to MONGO_DB (${JSON.stringify(mongo.db)}): set MONGO_DB=${uriDb} to use that one`,
        }),
  }
}

function redactedForge(forge: ForgeChoice): Record<string, unknown> {
  if (forge.kind === 'github')
    return {
      kind: 'github',
      appId: forge.app.appId,
      installations:
        forge.installations.kind === 'one'
          ? forge.installations.id
          : forge.installations.kind === 'all'
            ? 'all'
            : forge.installations.ids.join(','),
      apiUrl: forge.app.apiUrl,
      privateKey: '[redacted]',
    }
  if (forge.kind === 'unchecked')
    return {
      kind: 'unchecked',
      note: 'this command uses no forge; `run` and `once` would refuse these',
      issues: forge.issues,
    }
  return forge
}

/** An option's value as its variable takes it: redacted when secret, a duration with its unit. */
function optionText(option: NetDefinition['options'][string] | undefined, value: unknown): unknown {
  if (option?.secret) return '[redacted]'
  if (option && typeof value === 'number' && parseDuration(option.defaultText) !== undefined)
    return formatDuration(value)
  return value
}
