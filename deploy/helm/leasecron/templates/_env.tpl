{{/* The worker's environment: the raw manifest's, then the admin token, the nets' settings and env. */}}
{{- define "leasecron.env" -}}
{{- if ge (int64 .Values.shutdownTimeoutMs) (mul (int64 .Values.terminationGracePeriodSeconds) 1000) }}
{{- fail (printf "shutdownTimeoutMs (%v) must be below terminationGracePeriodSeconds (%v s): the kubelet kills the pod at the grace period, before its passes end and its leases are released" .Values.shutdownTimeoutMs .Values.terminationGracePeriodSeconds) }}
{{- end }}
- { name: PORT, value: "8080" }
- { name: MONGO_DB, value: {{ .Values.mongoDatabase | quote }} }
- { name: LOG_LEVEL, value: {{ .Values.logLevel | quote }} }
- { name: LEASECRON_SHUTDOWN_TIMEOUT_MS, value: {{ .Values.shutdownTimeoutMs | toString | quote }} }
- name: LEASECRON_WORKER_ID
  valueFrom: { fieldRef: { fieldPath: metadata.name } }
- name: MONGO_URI
  valueFrom: { secretKeyRef: { name: {{ include "leasecron.secretName" . }}, key: mongo-uri } }
- { name: GITHUB_APP_ID, value: {{ include "leasecron.text" .Values.github.appId }} }
{{- if .Values.github.installationIds }}
- { name: GITHUB_INSTALLATION_IDS, value: {{ include "leasecron.text" .Values.github.installationIds }} }
{{- else }}
- { name: GITHUB_INSTALLATION_ID, value: {{ include "leasecron.text" .Values.github.installationId }} }
{{- end }}
- { name: GITHUB_APP_PRIVATE_KEY_FILE, value: /var/run/leasecron/github-app-private-key.pem }
{{- with .Values.adminToken.secretName }}
- name: LEASECRON_ADMIN_TOKEN
  valueFrom: { secretKeyRef: { name: {{ . }}, key: {{ $.Values.adminToken.secretKey }} } }
{{- end }}
{{- range $net, $settings := .Values.nets }}
{{- range $setting, $value := $settings }}
- name: {{ printf "LEASECRON_NET_%s_%s" ($net | replace "-" "_" | upper) ($setting | upper) }}
  value: {{ include "leasecron.text" $value }}
{{- end }}
{{- end }}
{{- range $name, $value := .Values.env }}
- { name: {{ $name }}, value: {{ include "leasecron.text" $value }} }
{{- end }}
{{- end -}}
