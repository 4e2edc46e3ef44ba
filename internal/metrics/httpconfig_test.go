package metrics

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"
)

// authProxy is what stands in front of a managed or multi-tenant Prometheus (Mimir, Cortex,
// VictoriaMetrics with auth): HTTPS, a client certificate, a bearer token and a tenant
// header, each refused with 401 when missing. Behind it is the package's real Prometheus
// when one runs (not -short), else a stand-in that answers instant queries with 42.
func authProxy(t *testing.T, clientCA *x509.Certificate) *httptest.Server {
	t.Helper()
	var backend http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"42"]}]}}`))
	})
	if promURL != "" {
		u, err := url.Parse(promURL)
		if err != nil {
			t.Fatal(err)
		}
		backend = httputil.NewSingleHostReverseProxy(u)
		t.Logf("behind the proxy: the real Prometheus at %s", promURL)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") != "Bearer s3cret":
			http.Error(w, "bad or missing bearer token", http.StatusUnauthorized)
		case r.Header.Get("X-Scope-OrgID") != "tenant-a":
			http.Error(w, "no tenant", http.StatusUnauthorized)
		default:
			r.Header.Del("Authorization")
			r.Header.Del("X-Scope-OrgID")
			backend.ServeHTTP(w, r)
		}
	}))
	pool := x509.NewCertPool()
	pool.AddCert(clientCA)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// TestReaderAuthenticates reads through authProxy with an http_config file naming the
// token, the tenant header, the proxy's CA and a client certificate, all as files (as the
// chart mounts them from Secrets); without the file the same read is refused.
func TestReaderAuthenticates(t *testing.T) {
	dir := t.TempDir()
	clientCert, clientKey, clientX509 := selfSigned(t)
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	srv := authProxy(t, clientX509)
	write("ca.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	write("tls.crt", clientCert)
	write("tls.key", clientKey)
	write("token", "s3cret\n")
	write("tenant", "tenant-a")
	// Relative paths: the file's own folder, as Prometheus reads its http_config.
	cfg := write("http-config.yaml", `
authorization:
  credentials_file: token
http_headers:
  X-Scope-OrgID:
    files: [tenant]
tls_config:
  ca_file: ca.crt
  cert_file: tls.crt
  key_file: tls.key
`)
	query := "vector(42)"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	r, err := NewReaderWithHTTPConfig(srv.URL, cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, _, _, err := r.API.Query(ctx, query, time.Now())
	if err != nil {
		t.Fatalf("query through the authenticating proxy: %v", err)
	}
	vec, ok := v.(model.Vector)
	if !ok || len(vec) != 1 || vec[0].Value != 42 {
		t.Fatalf("query %s = %v, want one sample of 42", query, v)
	}

	// The same read without the token and tenant (TLS alone) is refused, with the proxy's words.
	tlsOnly := write("tls-only.yaml", "tls_config: {ca_file: ca.crt, cert_file: tls.crt, key_file: tls.key}\n")
	plain, err := NewReaderWithHTTPConfig(srv.URL, tlsOnly)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := plain.API.Query(ctx, query, time.Now()); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("query without token and tenant: %v, want a 401", err)
	}
}

// TestHTTPConfigErrorsNameTheField: a misspelt or contradictory setting stops the manager at
// start, naming the file and the field, rather than failing every run's first read.
func TestHTTPConfigErrorsNameTheField(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct{ text, want string }{
		"misspelt":      {"authorisation: {credentials: x}\n", "authorisation"},
		"two schemes":   {"basic_auth: {username: a, password: b}\nbearer_token: c\n", "at most one of basic_auth"},
		"reserved head": {"http_headers: {Authorization: {values: [x]}}\n", "Authorization"},
		"missing file":  {"tls_config: {ca_file: nowhere.crt}\n", "nowhere.crt"},
		// sigv4 signs the Authorization header itself: another scheme would be overwritten.
		"sigv4 and authorization": {"authorization: {credentials: x}\nsigv4: {region: eu-west-1}\n", "sigv4 and authorization"},
		"sigv4 and basic_auth":    {"basic_auth: {username: a, password: b}\nsigv4: {region: eu-west-1}\n", "sigv4 and basic_auth"},
		"sigv4 and bearer_token":  {"bearer_token: c\nsigv4: {region: eu-west-1}\n", "sigv4 and bearer_token"},
		"sigv4 misspelt":          {"sigv4: {regoin: eu-west-1}\n", "regoin"},
		"sigv4 half a key":        {"sigv4: {region: eu-west-1, access_key: AKID}\n", "sigv4: must provide"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := NewReaderWithHTTPConfig("http://127.0.0.1:9", path)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("NewReaderWithHTTPConfig: %v, want an error naming %s and %q", err, path, tc.want)
			}
		})
	}
}

// selfSigned is a certificate and key (PEM) fit for a TLS client, and the certificate.
func selfSigned(t *testing.T) (certPEM, keyPEM string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "gauntlet-manager"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})), cert
}
