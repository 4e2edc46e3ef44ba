{{/* Names and labels shared by every object of the chart. */}}
{{- define "gauntlet.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gauntlet.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "gauntlet.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gauntlet.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{- define "gauntlet.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gauntlet.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The wire agents' labels: apart from the manager's, so neither selector takes the other's pods. */}}
{{- define "gauntlet.wireAgentSelectorLabels" -}}
app.kubernetes.io/name: {{ include "gauntlet.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: wire-agent
{{- end -}}

{{- define "gauntlet.wireAgentTLSSecret" -}}
{{- printf "%s-wire-agent-tls" (include "gauntlet.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gauntlet.wireAgentServiceAccount" -}}
{{- printf "%s-wire-agent" (include "gauntlet.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gauntlet.historyDatabase" -}}
{{- printf "%s-history" (include "gauntlet.fullname" .) | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{/* The history database's objects: the release's labels, component history-database. */}}
{{- define "gauntlet.historyDatabaseLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "gauntlet.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: history-database
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "gauntlet.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gauntlet.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "gauntlet.image" -}}
{{- include "gauntlet.inRegistry" (dict "image" (printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag)) "registry" .Values.imageRegistry) -}}
{{- end -}}

{{/*
gauntlet.presetImage: a presetImages entry as deployed. A repository alone takes
presetImageTag, or else the chart's appVersion, so a chart of version X deploys the targets of
release X; an entry that names its own tag or digest is used as written.
*/}}
{{- define "gauntlet.presetImage" -}}
{{- $image := .image -}}
{{- $last := last (splitList "/" $image) -}}
{{- if or (contains "@" $image) (contains ":" $last) -}}
{{- $image -}}
{{- else -}}
{{- printf "%s:%s" $image (.root.Values.presetImageTag | default .root.Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
gauntlet.inRegistry: the image as the registry of imageRegistry holds it, at the same path
(ghcr.io/gauntlet-bench/gauntlet:1 -> mirror.example/gauntlet-bench/gauntlet:1); unchanged
when imageRegistry is empty. The first part of a reference is a registry when it has a dot
or a port or is localhost, as the container runtimes read it.
*/}}
{{- define "gauntlet.inRegistry" -}}
{{- $image := .image -}}
{{- with .registry -}}
{{- $parts := splitn "/" 2 $image -}}
{{- if and $parts._1 (or (contains "." $parts._0) (contains ":" $parts._0) (eq $parts._0 "localhost")) -}}
{{- $image = $parts._1 -}}
{{- end -}}
{{- $image = printf "%s/%s" (trimSuffix "/" .) $image -}}
{{- end -}}
{{- $image -}}
{{- end -}}

{{/*
gauntlet.managerArgs: the manager's command line, built from the values. Every flag is one
cmd/manager defines; test/chart starts the manager built from the tree with exactly these.
*/}}
{{- define "gauntlet.managerArgs" -}}
- --metrics-bind-address=:{{ .Values.metrics.port }}
- --metrics-secure={{ .Values.metrics.secure }}
{{- if and .Values.metrics.secure .Values.metrics.certSecret }}
- --metrics-cert-path=/etc/gauntlet/metrics-certs
{{- end }}
- --health-probe-bind-address=:{{ .Values.probes.port }}
- --leader-elect={{ .Values.leaderElection.enabled }}
- --leader-election-namespace={{ .Release.Namespace }}
- --prometheus-url={{ .Values.prometheus.url }}
{{- if .Values.prometheus.httpConfig }}
- --prometheus-http-config=/etc/gauntlet/prometheus-http/http-config.yaml
{{- end }}
- --prometheus-remote-write-url={{ .Values.prometheus.remoteWriteURL }}
- --cadvisor-scrape-interval={{ .Values.prometheus.cadvisorScrapeInterval }}
- --k6-image={{ .Values.k6.image }}
{{- with .Values.k6.starterImage }}
- --k6-starter-image={{ . }}
{{- end }}
{{- with .Values.postgres.image }}
- --postgres-image={{ . }}
{{- end }}
{{- if .Values.generatorFloor.enabled }}
- --null-responder-image={{ .Values.generatorFloor.image | default (include "gauntlet.image" .) }}
{{- end }}
- --targets-dir=/targets
{{- if .Values.history.database.enabled }}
- --history-database-url-file=/etc/gauntlet/history-database/uri
- --history-retention={{ mul .Values.history.retentionDays 24 }}h
{{- end }}
{{- if .Values.wireCapture.enabled }}
- --wire-agent-namespace={{ .Release.Namespace }}
- --wire-agent-selector=app.kubernetes.io/name={{ include "gauntlet.name" . }},app.kubernetes.io/instance={{ .Release.Name }},app.kubernetes.io/component=wire-agent
- --wire-agent-port={{ .Values.wireCapture.port }}
- --wire-agent-tls-secret={{ include "gauntlet.wireAgentTLSSecret" . }}
- --wire-agent-token-file=/var/run/secrets/gauntlet-wire/token
{{- end }}
{{- with .Values.timeouts }}
{{- with .database }}
- --database-timeout={{ . }}
{{- end }}
{{- with .targets }}
- --targets-timeout={{ . }}
{{- end }}
{{- with .verify }}
- --verify-timeout={{ . }}
{{- end }}
{{- with .trialStart }}
- --trial-start-timeout={{ . }}
{{- end }}
{{- with .trialFinish }}
- --trial-finish-timeout={{ . }}
{{- end }}
{{- with .unschedulable }}
- --unschedulable-timeout={{ . }}
{{- end }}
{{- end }}
{{- range $preset, $image := .Values.presetImages }}
- --image={{ $preset }}={{ include "gauntlet.inRegistry" (dict "image" (include "gauntlet.presetImage" (dict "image" $image "root" $)) "registry" $.Values.imageRegistry) }}
{{- end }}
- --zap-log-level={{ .Values.logLevel | default "info" }}
{{- with .Values.watchNamespace }}
- --watch-namespace={{ . }}
{{- end }}
- --max-concurrent-reconciles={{ .Values.maxConcurrentReconciles }}
- --max-concurrent-verifications={{ .Values.maxConcurrentVerifications }}
- --max-concurrent-verifications-per-namespace={{ .Values.maxConcurrentVerificationsPerNamespace }}
{{- if not (kindIs "invalid" .Values.keepFinishedTestRuns) }}
- --keep-finished-testruns={{ .Values.keepFinishedTestRuns }}
{{- end }}
{{- if not (kindIs "invalid" .Values.protectedNamespaces) }}
- --protected-namespaces={{ join "," .Values.protectedNamespaces }}
{{- end }}
{{- with .Values.excludedNamespaces }}
{{- if $.Values.watchNamespace }}
{{- fail "excludedNamespaces is for a cluster-wide install: with watchNamespace the manager serves that namespace only" }}
{{- end }}
- --excluded-namespaces={{ join "," . }}
{{- end }}
{{- with .Values.allowedRegistries }}
- --allowed-registries={{ join "," . }}
{{- end }}
{{- with .Values.insecureRegistries }}
- --insecure-registries={{ join "," . }}
{{- end }}
- --network-policy={{ .Values.networkPolicy.enabled }}
{{- with .Values.networkPolicy.prometheusNamespace }}
- --prometheus-namespace={{ . }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
gauntlet.prerequisites: the CRDs of the operators Gauntlet drives that the cluster does not
serve, one "operator (crd)" per line. Empty when helm has no cluster to ask (helm template,
helm lint): `lookup` answers nothing there, and kube-system, which every API server has,
tells the two cases apart.
*/}}
{{- define "gauntlet.prerequisites" -}}
{{- if lookup "v1" "Namespace" "" "kube-system" -}}
{{- $crds := list
  (list "CloudNativePG" "clusters.postgresql.cnpg.io")
  (list "CloudNativePG" "poolers.postgresql.cnpg.io")
  (list "k6-operator" "testruns.k6.io")
  (list "prometheus-operator" "podmonitors.monitoring.coreos.com")
  (list "prometheus-operator" "servicemonitors.monitoring.coreos.com")
  (list "prometheus-operator" "prometheuses.monitoring.coreos.com") -}}
{{- range $crds }}
{{- if not (lookup "apiextensions.k8s.io/v1" "CustomResourceDefinition" "" (index . 1)) }}
{{ index . 0 }} ({{ index . 1 }})
{{- end }}
{{- end }}
{{- end -}}
{{- end -}}
