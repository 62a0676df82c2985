{{/* Names, labels and the secret wiring shared by the templates. */}}

{{- define "scim-bridge.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "scim-bridge.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "scim-bridge.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "scim-bridge.selectorLabels" -}}
app.kubernetes.io/name: {{ include "scim-bridge.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "scim-bridge.labels" -}}
helm.sh/chart: {{ include "scim-bridge.chart" . }}
{{ include "scim-bridge.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: scim-bridge
{{- end }}

{{/* Roles run as Deployments: serve + worker, or all. Space-separated for splitList. */}}
{{- define "scim-bridge.roles" -}}
{{- if eq .Values.mode "split" }}serve worker
{{- else if eq .Values.mode "all" }}all
{{- else }}{{ fail (printf "mode must be split or all, not %q" .Values.mode) }}
{{- end }}
{{- end }}

{{/* The role whose pods serve the HTTP Service. */}}
{{- define "scim-bridge.httpRole" -}}
{{- ternary "serve" "all" (eq .Values.mode "split") }}
{{- end }}

{{- define "scim-bridge.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "scim-bridge.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "scim-bridge.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s:%s@%s" .Values.image.repository $tag .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{- define "scim-bridge.secretName" -}}
{{- default (include "scim-bridge.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/*
Every secret setting the pods receive, as JSON {"items": [{"env", "secret", "key"}]}: the file
<secrets.mountPath>/<env> holds the value and <env>_FILE names it. REDIS_URL comes from
redis.existingSecret or from the chart's Secret; the tokens from secrets.existingSecret (the keys
listed in existingSecretKeys) or from the chart's Secret (the non-empty values).
*/}}
{{- define "scim-bridge.secretItems" -}}
{{- $items := list }}
{{- $own := include "scim-bridge.fullname" . }}
{{- if .Values.redis.existingSecret }}
{{- $items = append $items (dict "env" "REDIS_URL" "secret" .Values.redis.existingSecret "key" .Values.redis.existingSecretKey) }}
{{- else if .Values.redis.url }}
{{- $items = append $items (dict "env" "REDIS_URL" "secret" $own "key" "REDIS_URL") }}
{{- end }}
{{- if .Values.secrets.existingSecret }}
{{- range $env, $key := .Values.secrets.existingSecretKeys }}
{{- $items = append $items (dict "env" $env "secret" $.Values.secrets.existingSecret "key" $key) }}
{{- end }}
{{- else }}
{{- range $env, $value := .Values.secrets.values }}
{{- if $value }}
{{- $items = append $items (dict "env" $env "secret" $own "key" $env) }}
{{- end }}
{{- end }}
{{- end }}
{{- dict "items" $items | toJson }}
{{- end }}

{{/* Data of the chart's own Secret (tokens unless existingSecret, REDIS_URL unless redis.existingSecret). */}}
{{- define "scim-bridge.ownSecretData" -}}
{{- $data := dict }}
{{- if and .Values.redis.url (not .Values.redis.existingSecret) }}
{{- $_ := set $data "REDIS_URL" .Values.redis.url }}
{{- end }}
{{- if not .Values.secrets.existingSecret }}
{{- range $env, $value := .Values.secrets.values }}
{{- if $value }}
{{- $_ := set $data $env $value }}
{{- end }}
{{- end }}
{{- end }}
{{- toJson $data }}
{{- end }}

{{/* Seconds the kubelet waits after preStop + SIGTERM; must outlast the bridge's own shutdown. */}}
{{- define "scim-bridge.gracePeriod" -}}
{{- $root := index . 0 }}
{{- $role := index . 1 }}
{{- $preStop := ternary 0 (int $root.Values.preStopSleepSeconds) (eq $role "worker") }}
{{- $needed := add (int $root.Values.config.http.shutdownTimeoutSeconds) $preStop }}
{{- $set := int $root.Values.terminationGracePeriodSeconds }}
{{- if eq $set 0 }}
{{- add $needed 5 }}
{{- else if le $set (int $needed) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed config.http.shutdownTimeoutSeconds + preStopSleepSeconds (%d)" $set $needed) }}
{{- else }}
{{- $set }}
{{- end }}
{{- end }}

{{/* PromQL matchers of this release's series (see prometheusRule.metricSelector). */}}
{{- define "scim-bridge.metricSelector" -}}
{{- if .Values.prometheusRule.metricSelector }}
{{- .Values.prometheusRule.metricSelector }}
{{- else }}
{{- printf "namespace=%q,job=%q" .Release.Namespace (printf "%s-metrics" (include "scim-bridge.fullname" .)) }}
{{- end }}
{{- end }}
