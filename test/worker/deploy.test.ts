/**
 * No Docker engine or cluster runs here, so the deployment files are checked by reading them: each
 * Kubernetes manifest against the Kubernetes OpenAPI schemas (kubernetes-models' validators) and the
 * restricted Pod Security profile (test/support/pod-security.ts), probes on the paths the worker really
 * serves, and only environment variables the configuration accepts.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { GITHUB_APP_VARIABLES } from '../../src/config/forge-env.js'
import { GLOBAL_VARIABLES } from '../../src/config/variables.js'
import { type HealthServer, startHealthServer } from '../../src/worker/http.js'
import { createWorkerMetrics } from '../../src/observe/metrics.js'
import { type Manifest, schemaErrors } from '../support/k8s-schemas.js'
import { restrictedViolations } from '../support/pod-security.js'

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const packageVersion: string = JSON.parse(read('package.json')).version
const accepted = new Set<string>([
  ...GLOBAL_VARIABLES.map(([name]) => name),
  ...GITHUB_APP_VARIABLES,
  'GITHUB_API_URL',
])
const acceptedName = (name: string) => accepted.has(name) || name.startsWith('LEASECRON_NET_')

// deploy/k8s/monitoring/ holds the PrometheusRule apart (it needs the operator's CRDs): checked all the same.
const yamlIn = (dir: string) =>
  readdirSync(new URL(`../../deploy/k8s/${dir}`, import.meta.url))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => `${dir}${f}`)
const k8sFiles = [...yamlIn(''), ...yamlIn('monitoring/')]
const manifests: Manifest[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(`deploy/k8s/${file}`)).map((doc) => doc.toJS()),
)
const only = (kind: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind)
  expect(found, `deploy/k8s should hold exactly one ${kind}`).toHaveLength(1)
  return found[0]!
}
const clone = (m: Manifest): Manifest => structuredClone(m)

let server: HealthServer
beforeAll(async () => {
  server = await startHealthServer({
    port: 0,
    host: '127.0.0.1',
    registry: createWorkerMetrics().registry,
    ready: async () => ({ ready: true, detail: {} }),
  })
})
afterAll(() => server.close())

async function served(path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${server.port}${path}`)).status
}

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile')

  it('builds in one Node 24 slim stage and runs production dependencies only in the next', () => {
    expect(
      dockerfile.match(/^FROM node:24-slim AS \w+$/gm),
      'not a two-stage Node 24 slim build',
    ).toHaveLength(2)
    expect(dockerfile).toMatch(/ENV NODE_ENV=production/)
    expect(dockerfile).toMatch(/COPY --from=build \/app\/dist \.\/dist/)
  })

  it('installs without lifecycle scripts, so `prepare` never runs without TypeScript or sources', () => {
    const installs = dockerfile.match(/^RUN npm ci.*$/gm) ?? []
    expect(installs).toHaveLength(2)
    for (const install of installs)
      expect(install, 'prepare would run in the image').toMatch(/--ignore-scripts/)
    expect(installs[1]).toMatch(/--omit=dev/)
  })

  it('runs as a non-root user, stops on SIGTERM and checks /healthz', async () => {
    const user = /^USER (\S+)/m.exec(dockerfile)?.[1]
    expect(user, 'the container runs as root').toBeDefined()
    expect(user!.split(':')[0], 'Kubernetes cannot verify a named user is not root').toMatch(/^[1-9]\d*$/)
    expect(dockerfile).toMatch(/^STOPSIGNAL SIGTERM$/m)
    const probe = /HEALTHCHECK[\s\S]*?(\/\w+)'/.exec(dockerfile)?.[1]
    expect(probe).toBe('/healthz')
    expect(await served(probe!)).toBe(200)
  })

  it('has a .dockerignore that keeps node_modules and the work tree out of the context', () => {
    const ignored = read('.dockerignore').split('\n')
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']))
  })
})

describe('the compose file', () => {
  const compose = parse(read('deploy/compose.yaml'))
  const worker = compose.services.worker

  it('runs three workers against one Mongo and restarts them unless stopped', () => {
    expect(compose.services.mongo.image).toMatch(/^mongo:/)
    expect(worker.deploy.replicas).toBe(3)
    expect(worker.environment.MONGO_URI).toMatch(/^mongodb:\/\/mongo:27017/)
    expect(worker.restart, 'a crashed worker would stay down').toBe('unless-stopped')
    expect(compose.services.mongo.restart).toBe('unless-stopped')
    expect(worker.image).toBe(`leasecron:${packageVersion}`)
  })

  it('sets only variables the configuration accepts and keeps the key in a secret file', () => {
    const names = Object.keys(worker.environment)
    expect(
      names.filter((n) => !acceptedName(n)),
      'compose sets variables the worker would reject',
    ).toEqual([])
    expect(names).not.toContain('GITHUB_APP_PRIVATE_KEY')
    expect(worker.environment.GITHUB_APP_PRIVATE_KEY_FILE).toMatch(/^\/run\/secrets\//)
    expect(worker.environment.GITHUB_APP_ID, 'a missing App id would reach the worker blank').toMatch(
      /^\$\{GITHUB_APP_ID:\?/,
    )
    expect(worker.stop_signal).toBe('SIGTERM')
    expect(worker.read_only).toBe(true)
    expect(worker.cap_drop).toEqual(['ALL'])
  })
})

describe('the Kubernetes manifests', () => {
  const deployment = only('Deployment')
  const pod = deployment.spec.template.spec
  const podLabels = deployment.spec.template.metadata.labels
  const container = pod.containers[0]

  it('are each valid against the Kubernetes schema of their kind', () => {
    expect(k8sFiles.length).toBeGreaterThan(0)
    for (const manifest of manifests)
      expect(schemaErrors(manifest), `${manifest.kind} ${manifest.metadata.name} would be rejected`).toEqual(
        [],
      )
  })

  it('alert with the same rules as deploy/prometheus/rules.yaml, and reject a malformed rule', () => {
    const rule = only('PrometheusRule')
    expect(rule.spec.groups, 'the PrometheusRule drifted from rules.yaml').toEqual(
      parse(read('deploy/prometheus/rules.yaml')).groups,
    )
    const typo = clone(rule)
    typo.spec.groups[0].rules[0].annotation = typo.spec.groups[0].rules[0].annotations
    expect(schemaErrors(typo).join(), 'an unknown rule field passed').toMatch(/additional/)
    const badFor = clone(rule)
    badFor.spec.groups[0].rules[0].for = 'five minutes'
    expect(schemaErrors(badFor), 'a `for` that is no duration passed').not.toEqual([])
  })

  it('reject a manifest that breaks the schema', () => {
    const broken = clone(deployment)
    broken.spec.template.spec.securityContext.seccompProfile = { type: 'Disabled' }
    broken.spec.replicas = 'two'
    const errors = schemaErrors(broken).join('\n')
    expect(errors).toMatch(/replicas must be integer/)
    expect(schemaErrors({ ...broken, kind: 'CronJob' })[0]).toMatch(/no schema model/)
  })

  it('give a pod that the restricted Pod Security profile admits', () => {
    expect(restrictedViolations(pod), 'a restricted namespace would reject the pod').toEqual([])
    expect(pod.securityContext.seccompProfile.type).toBe('RuntimeDefault')
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    })
    expect(pod.automountServiceAccountToken).toBe(false)
  })

  it('would be rejected without seccomp, with a host path, host network or root', () => {
    const noSeccomp = clone(deployment).spec.template.spec
    delete noSeccomp.securityContext.seccompProfile
    delete noSeccomp.containers[0].securityContext.seccompProfile
    expect(restrictedViolations(noSeccomp)).toEqual([
      expect.stringMatching(/leasecron has no seccompProfile/),
    ])

    const hostly = clone(deployment).spec.template.spec
    hostly.hostNetwork = true
    hostly.volumes.push({ name: 'docker', hostPath: { path: '/var/run/docker.sock' } })
    hostly.containers[0].securityContext = { runAsUser: 0, capabilities: { add: ['SYS_ADMIN'] } }
    expect(restrictedViolations(hostly)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/hostNetwork/),
        expect.stringMatching(/docker is a hostPath volume/),
        expect.stringMatching(/runs as user 0/),
        expect.stringMatching(/allowPrivilegeEscalation/),
        expect.stringMatching(/does not drop ALL/),
        expect.stringMatching(/adds the capability SYS_ADMIN/),
      ]),
    )
  })

  it('run in a namespace that enforces the restricted profile', () => {
    expect(only('Namespace').metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted')
  })

  it('name an image in a registry with the package version as its tag, never :latest', () => {
    const [, registry, tag] = /^([^/]+\.[^/]+)\/leasecron:(.+)$/.exec(container.image) ?? []
    expect(registry, `${container.image} names no registry`).toBeDefined()
    expect(tag).toBe(packageVersion)
  })

  it('keep a standby through rollouts and drains, on another node', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2)
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0)
    const budget = only('PodDisruptionBudget')
    expect(budget.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels)
    expect(
      deployment.spec.replicas - budget.spec.maxUnavailable,
      'a drain could stop every replica',
    ).toBeGreaterThanOrEqual(1)
    const byNode = pod.topologySpreadConstraints.find(
      (c: { topologyKey: string }) => c.topologyKey === 'kubernetes.io/hostname',
    )
    expect(byNode).toMatchObject({
      maxSkew: 1,
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: podLabels },
    })
  })

  it('have no autoscaler: replicas are standbys, and CPU is not this workload’s load', () => {
    expect(manifests.map((m) => m.kind)).not.toContain('HorizontalPodAutoscaler')
  })

  it('wire the liveness probe to /healthz and readiness to /readyz, as served', async () => {
    expect(container.livenessProbe.httpGet.path).toBe('/healthz')
    expect(container.readinessProbe.httpGet.path).toBe('/readyz')
    expect(await served(container.livenessProbe.httpGet.path)).toBe(200)
    expect(await served(container.readinessProbe.httpGet.path)).toBe(200)
    expect(container.ports[0].containerPort).toBe(8080)
    expect(container.livenessProbe.failureThreshold, 'one long pause would restart the pod').toBeGreaterThan(
      1,
    )
  })

  it('expose /metrics to Prometheus through a Service over every pod, ready or not', async () => {
    const service = only('Service')
    expect(service.spec.selector).toEqual(podLabels)
    expect(service.spec.publishNotReadyAddresses).toBe(true)
    const annotations = service.metadata.annotations
    expect(annotations['prometheus.io/scrape']).toBe('true')
    expect(Number(annotations['prometheus.io/port'])).toBe(container.ports[0].containerPort)
    expect(await served(annotations['prometheus.io/path'])).toBe(200)
  })

  it('gives a 30 s grace period, longer than the worker’s shutdown timeout', () => {
    expect(pod.terminationGracePeriodSeconds).toBe(30)
    const timeout = container.env.find((e: { name: string }) => e.name === 'LEASECRON_SHUTDOWN_TIMEOUT_MS')
    expect(Number(timeout.value)).toBeLessThan(30_000)
  })

  it('sets only accepted variables and reads secrets from the Secret', () => {
    const secret = only('Secret')
    const names = container.env.map((e: { name: string }) => e.name)
    expect(
      names.filter((n: string) => !acceptedName(n)),
      'the Deployment sets variables the worker would reject',
    ).toEqual([])
    const fromSecret = container.env.filter(
      (e: { valueFrom?: { secretKeyRef?: unknown } }) => e.valueFrom?.secretKeyRef,
    )
    expect(fromSecret.map((e: { name: string }) => e.name)).toEqual(['MONGO_URI'])
    for (const e of fromSecret) expect(Object.keys(secret.stringData)).toContain(e.valueFrom.secretKeyRef.key)
    const keyVolume = pod.volumes.find(
      (v: { secret?: { secretName: string } }) => v.secret?.secretName === secret.metadata.name,
    )
    expect(keyVolume, 'the App key is not mounted from the Secret').toBeDefined()
    expect(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toContain('/tmp')
  })
})
