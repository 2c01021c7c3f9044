/**
 * The Helm chart (deploy/helm/leasecron) with the real helm (tools/helm/build.sh builds it from the Go
 * module proxy; the global setup runs it): `helm lint`, and `helm template` for the default values and two
 * other sets, each rendered object checked as the raw manifests are (test/worker/deploy.test.ts): against
 * the Kubernetes schemas (kubernetes-models) or the operator's, the restricted Pod Security profile, and
 * only variables the configuration accepts. The default values render the raw manifests' pod, Service,
 * budget and Secret. No cluster runs here.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { parse, parseAllDocuments, stringify } from 'yaml'
import { GITHUB_APP_VARIABLES } from '../../src/config/forge-env.js'
import { GLOBAL_VARIABLES } from '../../src/config/variables.js'
import { type Manifest, schemaErrors } from '../support/k8s-schemas.js'
import { restrictedViolations } from '../support/pod-security.js'

const root = fileURLToPath(new URL('../../', import.meta.url))
const chart = join(root, 'deploy/helm/leasecron')
const read = (path: string) => readFileSync(join(root, path), 'utf8')
const raw: Manifest[] = ['deployment', 'service', 'pdb', 'secret'].flatMap((name) =>
  parseAllDocuments(read(`deploy/k8s/${name}.yaml`)).map((d) => d.toJS()),
)
const accepted = new Set<string>([...GLOBAL_VARIABLES.map(([name]) => name), ...GITHUB_APP_VARIABLES])
const work = mkdtempSync(join(tmpdir(), 'leasecron-helm-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** The helm binary, or the reason the global setup has none, as this file's failure. */
function helm(): string {
  const built = inject('helm')
  if ('error' in built) throw new Error(`helm could not be built (tools/helm/build.sh): ${built.error}`)
  return built.path
}

/** Runs helm with `args` and a values file holding `values`; its output, or the failure's. */
async function runHelm(args: string[], values: object = {}) {
  const file = join(work, `values-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(file, stringify(values))
  return promisify(execFile)(helm(), [...args, '-f', file], { cwd: root }).then(
    ({ stdout }) => ({ ok: true, output: stdout }),
    (error: { stdout?: string; stderr?: string }) => ({
      ok: false,
      output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
    }),
  )
}

/** The objects `helm template leasecron` renders with `values`, by kind. */
async function render(values: object = {}): Promise<Map<string, Manifest>> {
  const { ok, output } = await runHelm(['template', 'leasecron', chart, '-n', 'leasecron'], values)
  expect(ok, `helm template failed: ${output}`).toBe(true)
  const objects: Manifest[] = parseAllDocuments(output)
    .map((d) => d.toJS())
    .filter(Boolean)
  for (const object of objects)
    expect(schemaErrors(object), `${object.kind} would be rejected by the API server`).toEqual([])
  return new Map(objects.map((o) => [o.kind, o]))
}

const rawOf = (kind: string): Manifest => raw.find((m) => m.kind === kind)
const envNames = (deployment: Manifest): string[] =>
  deployment.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name)

/** Another release's labels aside: the topology spread's selector says the release too. */
function withoutSelectors(pod: Manifest): Manifest {
  const copy = structuredClone(pod)
  for (const constraint of copy.topologySpreadConstraints ?? []) delete constraint.labelSelector
  return copy
}

const OPERATED = {
  replicaCount: 3,
  image: { repository: 'ghcr.io/acme/leasecron', tag: '0.4.0' },
  // Numbers, as a values file gives them: YAML reads them as floats, which must still render as digits.
  github: { appId: 1234567, installationIds: 'all' },
  secret: { existingSecret: 'leasecron-prod' },
  adminToken: { secretName: 'leasecron-admin' },
  nets: { 'board-issue-sync': { SCHEDULE: '*/5 * * * *', JITTER: '30s', CATCH_UP_MAX: 1000000 } },
  env: { LEASECRON_BIND_ADDRESS: '0.0.0.0' },
  serviceMonitor: { enabled: true, labels: { release: 'prometheus' } },
  prometheusRule: { enabled: true, labels: { release: 'prometheus' } },
}
const SMALL = {
  replicaCount: 1,
  podDisruptionBudget: { enabled: false },
  topologySpread: false,
  service: { scrapeAnnotations: false },
  resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } },
}

describe('the Helm chart', () => {
  it('passes helm lint --strict with its default values and with each other set', async () => {
    for (const values of [{}, OPERATED, SMALL]) {
      const { ok, output } = await runHelm(['lint', '--strict', chart], values)
      expect(ok, `helm lint fails: ${output}`).toBe(true)
    }
  }, 60_000)

  it('renders the raw manifests’ pod, Service, budget and Secret with its default values', async () => {
    const objects = await render()
    expect([...objects.keys()].sort()).toEqual(['Deployment', 'PodDisruptionBudget', 'Secret', 'Service'])
    const deployment = objects.get('Deployment')
    expect(withoutSelectors(deployment.spec.template.spec), 'the pod drifted from deploy/k8s').toEqual(
      withoutSelectors(rawOf('Deployment').spec.template.spec),
    )
    expect(deployment.spec.replicas).toBe(rawOf('Deployment').spec.replicas)
    expect(deployment.spec.strategy).toEqual(rawOf('Deployment').spec.strategy)
    const { selector: _s, ...service } = objects.get('Service').spec
    const { selector: _r, ...rawService } = rawOf('Service').spec
    expect(service).toEqual(rawService)
    expect(objects.get('Service').metadata.annotations).toEqual(rawOf('Service').metadata.annotations)
    expect(objects.get('PodDisruptionBudget').spec.maxUnavailable).toBe(1)
    expect(objects.get('Secret').stringData).toEqual(rawOf('Secret').stringData)
  }, 60_000)

  it('selects only its own release’s pods, and keeps them within the restricted profile', async () => {
    const objects = await render()
    const deployment = objects.get('Deployment')
    const selector = deployment.spec.selector.matchLabels
    expect(selector).toEqual({
      'app.kubernetes.io/name': 'leasecron',
      'app.kubernetes.io/instance': 'leasecron',
    })
    expect(deployment.spec.template.metadata.labels).toMatchObject(selector)
    for (const kind of ['Service', 'PodDisruptionBudget'])
      expect(objects.get(kind).spec.selector.matchLabels ?? objects.get(kind).spec.selector).toEqual(selector)
    expect(restrictedViolations(deployment.spec.template.spec)).toEqual([])
    expect(envNames(deployment).filter((n) => !accepted.has(n))).toEqual([])
  }, 60_000)

  it('uses an existing Secret, sets per-net settings and the admin token, and adds the operator’s objects', async () => {
    const objects = await render(OPERATED)
    expect(objects.has('Secret'), 'the chart made a Secret beside the existing one').toBe(false)
    const deployment = objects.get('Deployment')
    const pod = deployment.spec.template.spec
    expect(deployment.spec.replicas).toBe(3)
    expect(pod.containers[0].image).toBe('ghcr.io/acme/leasecron:0.4.0')
    expect(pod.volumes[0].secret.secretName).toBe('leasecron-prod')
    const env = pod.containers[0].env as { name: string; value?: string; valueFrom?: Manifest }[]
    expect(env.find((e) => e.name === 'MONGO_URI')?.valueFrom.secretKeyRef.name).toBe('leasecron-prod')
    expect(env.find((e) => e.name === 'LEASECRON_ADMIN_TOKEN')?.valueFrom.secretKeyRef).toEqual({
      name: 'leasecron-admin',
      key: 'admin-token',
    })
    expect(env.find((e) => e.name === 'LEASECRON_NET_BOARD_ISSUE_SYNC_SCHEDULE')?.value).toBe('*/5 * * * *')
    expect(env.find((e) => e.name === 'LEASECRON_NET_BOARD_ISSUE_SYNC_JITTER')?.value).toBe('30s')
    expect(env.find((e) => e.name === 'LEASECRON_NET_BOARD_ISSUE_SYNC_CATCH_UP_MAX')?.value).toBe('1000000')
    expect(env.find((e) => e.name === 'GITHUB_APP_ID')?.value, 'a numeric id rendered as a float').toBe(
      '1234567',
    )
    expect(env.find((e) => e.name === 'GITHUB_INSTALLATION_IDS')?.value).toBe('all')
    expect(envNames(deployment), 'both installation variables are set').not.toContain(
      'GITHUB_INSTALLATION_ID',
    )
    expect(
      envNames(deployment).filter((n) => !accepted.has(n) && !n.startsWith('LEASECRON_NET_')),
      'the chart sets a variable the worker would refuse',
    ).toEqual([])
    expect(objects.get('ServiceMonitor').metadata.labels.release).toBe('prometheus')
    expect(objects.get('ServiceMonitor').spec.endpoints).toEqual([
      { port: 'http', path: '/metrics', interval: '30s' },
    ])
    expect(objects.get('PrometheusRule').spec.groups, 'the chart’s rules drifted from rules.yaml').toEqual(
      parse(read('deploy/prometheus/rules.yaml')).groups,
    )
  }, 60_000)

  it('leaves out the budget, the spread and the scrape annotations when asked', async () => {
    const objects = await render(SMALL)
    expect(objects.has('PodDisruptionBudget')).toBe(false)
    const pod = objects.get('Deployment').spec.template.spec
    expect(pod.topologySpreadConstraints).toBeUndefined()
    expect(pod.containers[0].resources).toEqual(SMALL.resources)
    expect(objects.get('Service').metadata.annotations).toBeUndefined()
  }, 60_000)

  it('refuses values its schema does not allow, naming the value', async () => {
    for (const [values, named] of [
      [{ replicaCount: 'two' }, /replicaCount/],
      [{ image: { repository: 'r', tag: 'latest' } }, /tag/],
      [{ nets: { 'board-issue-sync': { schedule: '* * * * *' } } }, /schedule/],
      [{ replicas: 3 }, /replicas/],
      [{ env: { MONGO_URI: 'mongodb://elsewhere' } }, /MONGO_URI/],
      [
        { shutdownTimeoutMs: 60_000 },
        /shutdownTimeoutMs \(60000\) must be below terminationGracePeriodSeconds/,
      ],
    ] as const) {
      const { ok, output } = await runHelm(['template', 'leasecron', chart], values)
      expect(ok, `helm rendered ${JSON.stringify(values)}`).toBe(false)
      expect(output).toMatch(named)
    }
  }, 60_000)

  it('ships the alert rules of deploy/prometheus/rules.yaml', () => {
    expect(
      read('deploy/helm/leasecron/files/rules.yaml'),
      'run: cp deploy/prometheus/rules.yaml deploy/helm/leasecron/files/',
    ).toBe(read('deploy/prometheus/rules.yaml'))
  })
})
