{{/* The objects' name: the release's, when it already says leasecron; else release-leasecron. */}}
{{- define "leasecron.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* What selects this release's pods. */}}
{{- define "leasecron.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels. */}}
{{- define "leasecron.labels" -}}
{{ include "leasecron.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/*
A value as the text of an environment variable. YAML reads 1234567 in a values file as a float, and Helm's
toString writes a float as 1.234567e+06, which no id or count parses as: whole numbers are written as digits.
*/}}
{{- define "leasecron.text" -}}
{{- if and (kindIs "float64" .) (eq . (floor .)) -}}
{{- . | int64 | toString | quote -}}
{{- else -}}
{{- . | toString | quote -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding mongo-uri and github-app-private-key.pem: the user's, or the chart's. */}}
{{- define "leasecron.secretName" -}}
{{- default (include "leasecron.fullname" .) .Values.secret.existingSecret -}}
{{- end -}}
