/**
 * The restricted Pod Security Standard (Kubernetes' "restricted" level, which includes "baseline"), as
 * a check of a pod spec's fields: each rule the admission controller applies to a pod template, returning
 * every violation as a sentence. No library implements these rules outside the API server, so they are
 * written out here from the standard's table; the schema itself is checked by kubernetes-models.
 *
 * It checks the fields this project's manifests can set; it is not an admission controller (no
 * version-specific exemptions, Windows pods are out of scope).
 */

type Obj = Record<string, unknown>

const ALLOWED_VOLUME_SOURCES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
])
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
])
const SELINUX_TYPES = new Set([
  undefined,
  '',
  'container_t',
  'container_init_t',
  'container_kvm_t',
  'container_engine_t',
])
const SECCOMP_ALLOWED = new Set(['RuntimeDefault', 'Localhost'])

const obj = (value: unknown): Obj => (value && typeof value === 'object' ? (value as Obj) : {})
const list = (value: unknown): Obj[] => (Array.isArray(value) ? value.map(obj) : [])

/** Every way `podSpec` breaks the restricted profile; empty when it passes. */
export function restrictedViolations(podSpec: unknown): string[] {
  const pod = obj(podSpec)
  const podContext = obj(pod.securityContext)
  const violations = [
    ...hostNamespaceViolations(pod),
    ...volumeViolations(pod),
    ...sysctlViolations(podContext),
  ]
  violations.push(...contextViolations('the pod', podContext))
  const containers = [...list(pod.initContainers), ...list(pod.containers), ...list(pod.ephemeralContainers)]
  for (const container of containers) violations.push(...containerViolations(container, podContext))
  return violations
}

function hostNamespaceViolations(pod: Obj): string[] {
  return (['hostNetwork', 'hostPID', 'hostIPC'] as const)
    .filter((field) => pod[field] === true)
    .map((field) => `the pod sets ${field}: true (baseline forbids host namespaces)`)
}

function volumeViolations(pod: Obj): string[] {
  const violations: string[] = []
  for (const volume of list(pod.volumes)) {
    for (const source of Object.keys(volume).filter((k) => k !== 'name')) {
      if (!ALLOWED_VOLUME_SOURCES.has(source))
        violations.push(
          `volume ${String(volume.name)} is a ${source} volume (restricted allows ${[...ALLOWED_VOLUME_SOURCES].join(', ')})`,
        )
    }
  }
  return violations
}

function sysctlViolations(podContext: Obj): string[] {
  return list(podContext.sysctls)
    .filter((s) => !SAFE_SYSCTLS.has(String(s.name)))
    .map((s) => `the pod sets the unsafe sysctl ${String(s.name)}`)
}

/** Rules that hold for the pod's and each container's securityContext alike. */
function contextViolations(who: string, context: Obj): string[] {
  const violations: string[] = []
  if (context.runAsNonRoot === false) violations.push(`${who} sets runAsNonRoot: false`)
  if (context.runAsUser === 0) violations.push(`${who} runs as user 0 (root)`)
  const seccomp = obj(context.seccompProfile).type
  if (seccomp !== undefined && !SECCOMP_ALLOWED.has(String(seccomp)))
    violations.push(`${who} has seccompProfile ${String(seccomp)} (RuntimeDefault or Localhost required)`)
  if (!SELINUX_TYPES.has(obj(context.seLinuxOptions).type as string | undefined))
    violations.push(`${who} sets an SELinux type outside the container types`)
  if (obj(context.seLinuxOptions).user || obj(context.seLinuxOptions).role)
    violations.push(`${who} sets an SELinux user or role`)
  const appArmor = obj(context.appArmorProfile).type
  if (appArmor === 'Unconfined') violations.push(`${who} runs with an Unconfined AppArmor profile`)
  return violations
}

function containerViolations(container: Obj, podContext: Obj): string[] {
  const who = `container ${String(container.name)}`
  const context = obj(container.securityContext)
  const violations = contextViolations(who, context)
  if (context.privileged === true) violations.push(`${who} is privileged`)
  if (context.allowPrivilegeEscalation !== false)
    violations.push(`${who} does not set allowPrivilegeEscalation: false`)
  if (context.procMount !== undefined && context.procMount !== 'Default')
    violations.push(`${who} unmasks /proc`)
  const capabilities = obj(context.capabilities)
  const dropped = Array.isArray(capabilities.drop) ? capabilities.drop : []
  if (!dropped.includes('ALL')) violations.push(`${who} does not drop ALL capabilities`)
  const added = Array.isArray(capabilities.add) ? capabilities.add : []
  for (const cap of added.filter((c) => c !== 'NET_BIND_SERVICE'))
    violations.push(`${who} adds the capability ${String(cap)}`)
  if ((context.runAsNonRoot ?? podContext.runAsNonRoot) !== true)
    violations.push(`${who} may run as root: runAsNonRoot: true is set neither on it nor on the pod`)
  if (obj(context.seccompProfile).type === undefined && obj(podContext.seccompProfile).type === undefined)
    violations.push(
      `${who} has no seccompProfile, on it or on the pod (RuntimeDefault or Localhost required)`,
    )
  for (const port of list(container.ports).filter((p) => p.hostPort !== undefined && p.hostPort !== 0))
    violations.push(`${who} binds host port ${String(port.hostPort)}`)
  return violations
}
