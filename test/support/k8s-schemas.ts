/**
 * The schema check of a Kubernetes object as parsed from YAML, by apiVersion and kind: the built-in kinds
 * through kubernetes-models' validators (the Kubernetes OpenAPI schemas), the Prometheus Operator's
 * PrometheusRule and ServiceMonitor (CRDs, which kubernetes-models does not model) through narrowed copies
 * of the operator's schemas. Shared by the raw manifests' test and the Helm chart's.
 */
import { Ajv } from 'ajv'
import { Deployment } from 'kubernetes-models/apps/v1/Deployment'
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget'
import { Namespace } from 'kubernetes-models/v1/Namespace'
import { Secret } from 'kubernetes-models/v1/Secret'
import { Service } from 'kubernetes-models/v1/Service'
import type { parse } from 'yaml'
import { PROMETHEUS_RULE_SCHEMA } from './prometheus-rule-schema.js'
import { SERVICE_MONITOR_SCHEMA } from './service-monitor-schema.js'

/** A YAML document as parsed: untyped until the schema check has passed it. */
export type Manifest = ReturnType<typeof parse>

/** A PrometheusRule is a CRD (no kubernetes-models model): checked against the operator's schema, narrowed. */
const ajv = new Ajv({ allErrors: true })
const validPrometheusRule = ajv.compile(PROMETHEUS_RULE_SCHEMA)
const validServiceMonitor = ajv.compile(SERVICE_MONITOR_SCHEMA)

/** The schema validator of each kind the manifests use; a new kind must be added here to be checked. */
const MODELS: Record<string, { validate(manifest: Manifest): void }> = {
  'apps/v1 Deployment': { validate: (m) => new Deployment(m).validate() },
  'policy/v1 PodDisruptionBudget': { validate: (m) => new PodDisruptionBudget(m).validate() },
  'v1 Service': { validate: (m) => new Service(m).validate() },
  'v1 Secret': { validate: (m) => new Secret(m).validate() },
  'v1 Namespace': { validate: (m) => new Namespace(m).validate() },
  'monitoring.coreos.com/v1 ServiceMonitor': {
    validate: (m) => {
      if (!validServiceMonitor(m)) throw new Error(JSON.stringify(validServiceMonitor.errors))
    },
  },
  'monitoring.coreos.com/v1 PrometheusRule': {
    validate: (m) => {
      if (!validPrometheusRule(m)) throw new Error(JSON.stringify(validPrometheusRule.errors))
    },
  },
}

/** The schema errors of one manifest (empty when it is valid), or why it cannot be checked. */
export function schemaErrors(manifest: Manifest): string[] {
  const model = MODELS[`${manifest.apiVersion} ${manifest.kind}`]
  if (!model) return [`no schema model for ${manifest.apiVersion} ${manifest.kind}: add it to MODELS`]
  try {
    model.validate(manifest)
    return []
  } catch (error) {
    return [String(error instanceof Error ? error.message : error)]
  }
}
