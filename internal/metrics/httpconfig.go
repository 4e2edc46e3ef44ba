package metrics

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/api"
	"github.com/prometheus/common/config"
	"github.com/prometheus/sigv4"
	"go.yaml.in/yaml/v2"
)

// httpConfigFile is the --prometheus-http-config file: Prometheus's http_config and, as in
// Prometheus's remote_write, a sigv4 section for Amazon Managed Prometheus.
type httpConfigFile struct {
	// A named inline field, not an embedded one: embedding would promote HTTPClientConfig's
	// UnmarshalYAML, which knows no sigv4 and would refuse it.
	HTTPClientConfig config.HTTPClientConfig `yaml:",inline"`
	SigV4            *sigV4Section           `yaml:"sigv4,omitempty"`
}

// sigV4Section is sigv4.SigV4Config whose errors name the section.
type sigV4Section sigv4.SigV4Config

func (s *sigV4Section) UnmarshalYAML(unmarshal func(any) error) error {
	var c sigv4.SigV4Config
	if err := unmarshal(&c); err != nil {
		return fmt.Errorf("sigv4: %w", err)
	}
	*s = sigV4Section(c)
	return nil
}

func (c *httpConfigFile) UnmarshalYAML(unmarshal func(any) error) error {
	type plain httpConfigFile
	*c = httpConfigFile{HTTPClientConfig: config.DefaultHTTPClientConfig}
	if err := unmarshal((*plain)(c)); err != nil {
		return err
	}
	if c.SigV4 != nil {
		// sigv4 writes the Authorization header itself, so any other scheme would be lost.
		h := c.HTTPClientConfig
		for _, other := range []struct {
			field string
			set   bool
		}{
			{"authorization", h.Authorization != nil},
			{"basic_auth", h.BasicAuth != nil},
			{"oauth2", h.OAuth2 != nil},
			{"bearer_token", h.BearerToken != ""},
			{"bearer_token_file", h.BearerTokenFile != ""},
		} {
			if other.set {
				return fmt.Errorf("sigv4 and %s: at most one may be set (sigv4 signs the Authorization header itself)", other.field)
			}
		}
	}
	return c.HTTPClientConfig.Validate()
}

// HTTPClient is the HTTP client of httpConfig (NewReaderWithHTTPConfig), or a plain one
// when it is empty: what gauntlet check probes Prometheus with, as the manager reads it.
// With a sigv4 section, each request is signed for the service "aps"; with no keys given,
// credentials come from the AWS default chain (environment, IRSA web identity, shared
// profile, instance role), and are fetched once here, so missing ones stop the caller now.
func HTTPClient(httpConfig string) (*http.Client, error) {
	if httpConfig == "" {
		return &http.Client{Transport: api.DefaultRoundTripper}, nil
	}
	c, err := httpClient(httpConfig)
	if err != nil {
		return nil, fmt.Errorf("prometheus http config %s: %w", httpConfig, err)
	}
	return c, nil
}

func httpClient(path string) (*http.Client, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f httpConfigFile
	if err := yaml.UnmarshalStrict(text, &f); err != nil {
		return nil, err
	}
	// Relative paths (credentials_file, ca_file, ...) are relative to the file's folder, as
	// config.LoadHTTPConfigFile reads them.
	f.HTTPClientConfig.SetDirectory(filepath.Dir(path))
	c, err := config.NewClientFromConfig(f.HTTPClientConfig, "gauntlet-prometheus")
	if err != nil {
		return nil, err
	}
	if f.SigV4 != nil {
		if c.Transport, err = sigv4.NewSigV4RoundTripper((*sigv4.SigV4Config)(f.SigV4), c.Transport); err != nil {
			return nil, fmt.Errorf("sigv4: %w", err)
		}
	}
	return c, nil
}
