package specs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/targets"
)

// DefaultK6Image is the k6 the load generators run: the version the script and the
// figures of docs/sizing.md were measured with.
const DefaultK6Image = "grafana/k6:1.8.1"

// DefaultPrometheusRemoteWriteURL is the service prometheus-operator puts in front of every
// Prometheus (prometheus-operated), in the conventional monitoring namespace; that
// Prometheus needs the remote-write receiver and native histograms enabled.
const DefaultPrometheusRemoteWriteURL = "http://prometheus-operated.monitoring.svc:9090/api/v1/write"

// Config is the operator's configuration, the same for every run.
type Config struct {
	// Images maps a preset (a folder under targets/) to the image deployed for it.
	Images map[string]string
	// K6Image runs the load generators unless a run names its own.
	K6Image string
	// K6StarterImage, when set, runs k6-operator's starter pod (a shell and curl) instead
	// of k6-operator's default, ghcr.io/grafana/k6-operator:latest-starter.
	K6StarterImage string
	// PrometheusRemoteWriteURL receives k6's metrics.
	PrometheusRemoteWriteURL string
	// SchemaSQL is loaded into every database (targets/schema.sql).
	SchemaSQL string
	// PostgresImage, when set, pins the PostgreSQL image; empty leaves CloudNativePG's default.
	PostgresImage string
	// NullResponderImage runs the generator floor's null responder: an image with
	// /gauntlet, such as the operator's own (the Dockerfile ships both binaries).
	NullResponderImage string
	// AllowedRegistries, when not empty, are the only places bring-your-own images (a
	// target's or the load generator's image) may come from: registry hosts, or
	// host/path prefixes ("ghcr.io/acme"). Presets' images are the operator's own.
	AllowedRegistries []string
	// NetworkPolicy fences every run's targets in (TargetNetworkPolicy).
	NetworkPolicy NetworkPolicyConfig
}

// NetworkPolicyConfig says where the pods that may reach a target live, besides the run's
// own k6 runners: the operator (it verifies targets) and Prometheus.
type NetworkPolicyConfig struct {
	Enabled bool
	// OperatorNamespace and OperatorPodLabels select the operator's pods.
	OperatorNamespace string
	OperatorPodLabels map[string]string
	// PrometheusNamespace and PrometheusPodLabels select Prometheus's pods.
	PrometheusNamespace string
	PrometheusPodLabels map[string]string
	// DNSNamespace and DNSPodLabels select the cluster's DNS pods, the only DNS a target
	// may ask (not port 53 of every pod in the cluster).
	DNSNamespace string
	DNSPodLabels map[string]string
}

// DefaultNetworkPolicy matches config/manager (namespace gauntlet-system, the manager's
// labels) and prometheus-operator's pods (app.kubernetes.io/name=prometheus) in the
// conventional monitoring namespace.
func DefaultNetworkPolicy() NetworkPolicyConfig {
	return NetworkPolicyConfig{
		Enabled:             true,
		OperatorNamespace:   "gauntlet-system",
		OperatorPodLabels:   map[string]string{"app.kubernetes.io/name": "gauntlet", "app.kubernetes.io/component": "manager"},
		PrometheusNamespace: "monitoring",
		PrometheusPodLabels: map[string]string{"app.kubernetes.io/name": "prometheus"},
		// CoreDNS as kubeadm, kind, k3s and the managed clusters deploy it.
		DNSNamespace: "kube-system",
		DNSPodLabels: map[string]string{"k8s-app": "kube-dns"},
	}
}

// NewConfig is the default configuration for the given presets: each preset's image is the
// `image:` of its target.yaml.
func NewConfig(presets []*preset.Preset) Config {
	images := make(map[string]string, len(presets))
	for _, p := range presets {
		images[p.Name] = p.Image
	}
	return Config{
		Images:                   images,
		K6Image:                  DefaultK6Image,
		PrometheusRemoteWriteURL: DefaultPrometheusRemoteWriteURL,
		SchemaSQL:                targets.SchemaSQL,
		NetworkPolicy:            DefaultNetworkPolicy(),
	}
}

// LoadConfig reads every targets/*/target.yaml under targetsDir into the default configuration.
func LoadConfig(targetsDir string) (Config, error) {
	presets, err := preset.LoadAll(targetsDir)
	if err != nil {
		return Config{}, err
	}
	return NewConfig(presets), nil
}

// OverrideImages replaces preset images, for example with a private registry's copies.
// An override for a preset that does not exist is an error, not a silent no-op.
func (c *Config) OverrideImages(images map[string]string) error {
	var unknown []string
	for name, image := range images {
		if _, ok := c.Images[name]; !ok {
			unknown = append(unknown, name)
			continue
		}
		if strings.TrimSpace(image) == "" {
			return fmt.Errorf("image override for preset %q is empty", name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("image overrides for unknown presets: %s", strings.Join(unknown, ", "))
	}
	for name, image := range images {
		c.Images[name] = image
	}
	return nil
}
