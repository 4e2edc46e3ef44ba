package chart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/config"
	"sigs.k8s.io/yaml"

	"github.com/gauntlet-bench/gauntlet/internal/metrics"
)

// TestPrometheusHTTPConfig: prometheus.httpConfig reaches the manager as the file its
// --prometheus-http-config names (the Secret mounted where the flag points), in a form
// Prometheus's own loader accepts with every setting kept, and each of prometheus.secrets is
// mounted where httpConfig's file settings point. Without httpConfig nothing is added.
func TestPrometheusHTTPConfig(t *testing.T) {
	values := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(values, []byte(`
prometheus:
  url: https://mimir.example/prometheus
  secrets: [mimir-auth, tls.example]
  httpConfig:
    authorization: {credentials_file: /etc/gauntlet/prometheus-secrets/mimir-auth/token}
    http_headers:
      X-Scope-OrgID: {values: [team-a]}
    tls_config:
      ca_file: /etc/gauntlet/prometheus-secrets/tls.example/ca.crt
      cert_file: /etc/gauntlet/prometheus-secrets/tls.example/tls.crt
      key_file: /etc/gauntlet/prometheus-secrets/tls.example/tls.key
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := helm(t, "template", "gauntlet", chartDir, "-f", values)
	if err != nil {
		t.Fatal(err)
	}
	objs := decode(t, out)
	var file string
	for _, a := range managerArgs(t, objs) {
		if v, ok := strings.CutPrefix(a, "--prometheus-http-config="); ok {
			file = v
		}
	}
	if file == "" {
		t.Fatal("no --prometheus-http-config with prometheus.httpConfig set")
	}
	mounts, volumes := managerMounts(t, objs)
	secretAt := map[string]string{} // mount path -> Secret
	for _, m := range mounts {
		secretAt[m.MountPath] = volumes[m.Name]
	}
	if got := secretAt[filepath.Dir(file)]; got != "gauntlet-prometheus-http-config" {
		t.Errorf("%s is not in the http config Secret's mount (mounts %v)", file, secretAt)
	}
	for _, s := range []string{"mimir-auth", "tls.example"} {
		if got := secretAt["/etc/gauntlet/prometheus-secrets/"+s]; got != s {
			t.Errorf("Secret %s is not mounted at /etc/gauntlet/prometheus-secrets/%s (mounts %v)", s, s, secretAt)
		}
	}
	var text string
	for _, o := range objs {
		if o.Kind == "Secret" && o.Metadata.Name == "gauntlet-prometheus-http-config" {
			var sec struct {
				StringData map[string]string `json:"stringData"`
			}
			if err := yaml.Unmarshal(o.Raw, &sec); err != nil {
				t.Fatal(err)
			}
			text = sec.StringData[filepath.Base(file)]
		}
	}
	cfg, err := config.LoadHTTPConfig(text)
	if err != nil {
		t.Fatalf("the rendered http_config does not load as Prometheus's: %v\n%s", err, text)
	}
	if cfg.Authorization == nil || cfg.Authorization.CredentialsFile != "/etc/gauntlet/prometheus-secrets/mimir-auth/token" ||
		cfg.HTTPHeaders == nil || strings.Join(cfg.HTTPHeaders.Headers["X-Scope-OrgID"].Values, ",") != "team-a" ||
		cfg.TLSConfig.CertFile != "/etc/gauntlet/prometheus-secrets/tls.example/tls.crt" {
		t.Errorf("the rendered http_config lost a setting:\n%s", text)
	}

	plain, err := helm(t, "template", "gauntlet", chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain, "prometheus-http-config") || strings.Contains(plain, "prometheus-secrets") {
		t.Error("without prometheus.httpConfig the chart still renders its Secret, flag or mounts")
	}
}

type volumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
}

// managerMounts is the manager container's volume mounts and each Secret volume's Secret.
func managerMounts(t *testing.T, objs []object) ([]volumeMount, map[string]string) {
	t.Helper()
	for _, o := range objs {
		if o.Kind != "Deployment" {
			continue
		}
		var d struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name         string        `json:"name"`
							VolumeMounts []volumeMount `json:"volumeMounts"`
						} `json:"containers"`
						Volumes []struct {
							Name   string `json:"name"`
							Secret struct {
								SecretName string `json:"secretName"`
							} `json:"secret"`
						} `json:"volumes"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(o.Raw, &d); err != nil {
			t.Fatal(err)
		}
		volumes := map[string]string{}
		for _, v := range d.Spec.Template.Spec.Volumes {
			volumes[v.Name] = v.Secret.SecretName
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "manager" {
				return c.VolumeMounts, volumes
			}
		}
	}
	t.Fatal("no manager container")
	return nil, nil
}

// TestPrometheusHTTPConfigSigV4: the docs' Amazon Managed Prometheus install (a sigv4 section,
// the IRSA role on the ServiceAccount) renders a Secret whose file the manager's own loader
// accepts, taking the credentials from the AWS default chain (here its environment step).
func TestPrometheusHTTPConfigSigV4(t *testing.T) {
	dir := t.TempDir()
	values := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(values, []byte(`
serviceAccount:
  annotations:
    eks.amazonaws.com/role-arn: arn:aws:iam::111122223333:role/gauntlet-amp-query
prometheus:
  url: https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-0123abcd
  httpConfig:
    sigv4: {region: eu-west-1}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := helm(t, "template", "gauntlet", chartDir, "-f", values)
	if err != nil {
		t.Fatal(err)
	}
	var text, role string
	for _, o := range decode(t, out) {
		switch {
		case o.Kind == "Secret" && o.Metadata.Name == "gauntlet-prometheus-http-config":
			var sec struct {
				StringData map[string]string `json:"stringData"`
			}
			if err := yaml.Unmarshal(o.Raw, &sec); err != nil {
				t.Fatal(err)
			}
			text = sec.StringData["http-config.yaml"]
		case o.Kind == "ServiceAccount":
			role = o.Metadata.Annotations["eks.amazonaws.com/role-arn"]
		}
	}
	if !strings.Contains(text, "sigv4:") || !strings.Contains(text, "region: eu-west-1") {
		t.Fatalf("the rendered http config lost sigv4:\n%s", text)
	}
	if role != "arn:aws:iam::111122223333:role/gauntlet-amp-query" {
		t.Errorf("ServiceAccount role-arn annotation %q, want the IRSA role", role)
	}
	file := filepath.Join(dir, "http-config.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDCHARTTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "chart-test-secret")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "no-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "no-credentials"))
	if _, err := metrics.HTTPClient(file); err != nil {
		t.Errorf("the manager refuses the rendered http config: %v\n%s", err, text)
	}
}
