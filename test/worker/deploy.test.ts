/**
 * No Docker engine runs here, so the deployment files are checked by reading them: non-root, probes on
 * the paths the worker really serves, and only environment variables the configuration accepts.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, parseAllDocuments } from 'yaml'
import { GITHUB_APP_VARIABLES } from '../../src/forge/forge-config.js'
import { GLOBAL_VARIABLES } from '../../src/worker/config.js'
import { type HealthServer, startHealthServer } from '../../src/worker/http.js'
import { createWorkerMetrics } from '../../src/worker/metrics.js'

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8')
const accepted = new Set<string>([
  ...GLOBAL_VARIABLES.map(([name]) => name),
  ...GITHUB_APP_VARIABLES,
  'GITHUB_API_URL',
])
const acceptedName = (name: string) => accepted.has(name) || name.startsWith('LEASECRON_NET_')

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

  it('builds in one stage and runs production dependencies only in the next', () => {
    expect(dockerfile.match(/^FROM node:20-slim/gm), 'not a two-stage Node 20 slim build').toHaveLength(2)
    expect(dockerfile).toMatch(/npm ci --omit=dev/)
    expect(dockerfile).toMatch(/ENV NODE_ENV=production/)
  })

  it('runs as a non-root user, stops on SIGTERM and checks /healthz', async () => {
    const user = /^USER (\S+)/m.exec(dockerfile)?.[1]
    expect(user, 'the container runs as root').toBeDefined()
    expect(['root', '0']).not.toContain(user)
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

  it('runs three workers against one Mongo', () => {
    expect(compose.services.mongo.image).toMatch(/^mongo:/)
    expect(compose.services.worker.deploy.replicas).toBe(3)
    expect(compose.services.worker.environment.MONGO_URI).toMatch(/^mongodb:\/\/mongo:27017/)
  })

  it('sets only variables the configuration accepts and keeps the key in a secret file', () => {
    const names = Object.keys(compose.services.worker.environment)
    expect(
      names.filter((n) => !acceptedName(n)),
      'compose sets variables the worker would reject',
    ).toEqual([])
    expect(names).not.toContain('GITHUB_APP_PRIVATE_KEY')
    expect(compose.services.worker.environment.GITHUB_APP_PRIVATE_KEY_FILE).toMatch(/^\/run\/secrets\//)
    expect(compose.services.worker.stop_signal).toBe('SIGTERM')
    expect(compose.services.worker.read_only).toBe(true)
  })
})

describe('the Kubernetes manifests', () => {
  const deployment = parse(read('deploy/k8s/deployment.yaml'))
  const hpa = parse(read('deploy/k8s/hpa.yaml'))
  const secret = parseAllDocuments(read('deploy/k8s/secret.yaml'))[0]!.toJS()
  const pod = deployment.spec.template.spec
  const container = pod.containers[0]

  it('wires its probes to the paths the worker serves', async () => {
    expect(container.livenessProbe.httpGet.path).toBe('/healthz')
    expect(container.readinessProbe.httpGet.path).toBe('/readyz')
    expect(await served(container.livenessProbe.httpGet.path)).toBe(200)
    expect(await served(container.readinessProbe.httpGet.path)).toBe(200)
    expect(container.ports[0].containerPort).toBe(8080)
  })

  it('gives a 30 s grace period, longer than the worker’s shutdown timeout', () => {
    expect(pod.terminationGracePeriodSeconds).toBe(30)
    const timeout = container.env.find((e: { name: string }) => e.name === 'LEASECRON_SHUTDOWN_TIMEOUT_MS')
    expect(Number(timeout.value)).toBeLessThan(30_000)
  })

  it('runs as non-root with a read-only root filesystem and /tmp writable', () => {
    expect(pod.securityContext.runAsNonRoot).toBe(true)
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true)
    expect(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toContain('/tmp')
  })

  it('sets only accepted variables and reads secrets from the Secret', () => {
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
  })

  it('scales 1 → 10 with the HPA', () => {
    expect(hpa.spec).toMatchObject({
      minReplicas: 1,
      maxReplicas: 10,
      scaleTargetRef: { kind: 'Deployment', name: deployment.metadata.name },
    })
  })
})
