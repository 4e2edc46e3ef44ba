package metrics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/prometheus/common/model"
)

const (
	apsRegion    = "eu-west-1"
	apsAccessKey = "AKIDGAUNTLETTEST"
	apsSecretKey = "gauntlet-test-secret"
)

// authorizationRE parses a SigV4 Authorization header.
var authorizationRE = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$`)

// sigV4Server stands in for Amazon Managed Prometheus: it answers instant queries with 42
// only when the request carries a SigV4 signature for the service "aps" in apsRegion that it
// recomputes itself, from the same static credentials, with the AWS SDK's v4 signer; anything
// else is refused with 403, as AMP does. It records the last refusal's reason.
func sigV4Server(t *testing.T) (*httptest.Server, *refusal) {
	t.Helper()
	var last refusal
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := verifySigV4(r); why != "" {
			last.set(why)
			http.Error(w, why, http.StatusForbidden)
			return
		}
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"42"]}]}}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

// refusal is the last reason sigV4Server refused a request for (its handler runs apart).
type refusal struct {
	mu  sync.Mutex
	why string
}

func (r *refusal) set(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.why = why
}

func (r *refusal) get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why
}

// verifySigV4 is "" when r is signed for aps in apsRegion with apsAccessKey/apsSecretKey,
// else why not.
func verifySigV4(r *http.Request) string {
	got := r.Header.Get("Authorization")
	m := authorizationRE.FindStringSubmatch(got)
	if m == nil {
		return "no SigV4 Authorization header: " + got
	}
	keyID, day, region, service, signed := m[1], m[2], m[3], m[4], m[5]
	if keyID != apsAccessKey || region != apsRegion || service != "aps" {
		return "credential scope " + keyID + "/" + region + "/" + service + ", want " + apsAccessKey + "/" + apsRegion + "/aps"
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil || at.Format("20060102") != day {
		return "X-Amz-Date " + r.Header.Get("X-Amz-Date") + " does not match the scope's day " + day
	}
	if d := time.Since(at); d > 5*time.Minute || d < -5*time.Minute {
		return "X-Amz-Date too far from now"
	}
	if !strings.Contains(signed, "host") || !strings.Contains(signed, "x-amz-date") {
		return "SignedHeaders " + signed + " lack host or x-amz-date"
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return err.Error()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	// Rebuild the request from what the server received, only the headers the client says
	// it signed, and sign it again: the signatures match only if the client signed this very
	// method, path, query, body and those headers with the secret key.
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return err.Error()
	}
	again.Host = r.Host
	again.Header = http.Header{}
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "x-amz-date" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: apsAccessKey, SecretAccessKey: apsSecretKey}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "aps", apsRegion, at); err != nil {
		return err.Error()
	}
	if want := again.Header.Get("Authorization"); got != want {
		return "signature mismatch: got " + got + ", recomputed " + want
	}
	return ""
}

// TestReaderSignsSigV4 reads through sigV4Server with a sigv4 section (static keys, as a
// Secret would give them); the same read unsigned, or signed with another secret key, is
// refused.
func TestReaderSignsSigV4(t *testing.T) {
	// Only the file's keys: no shared config or credentials of whoever runs the test.
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "no-config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "no-credentials"))
	srv, refused := sigV4Server(t)
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	query := "vector(42)"

	signed := write("sigv4.yaml", "sigv4:\n  region: "+apsRegion+"\n  access_key: "+apsAccessKey+"\n  secret_key: "+apsSecretKey+"\n")
	r, err := NewReaderWithHTTPConfig(srv.URL, signed)
	if err != nil {
		t.Fatal(err)
	}
	v, _, _, err := r.API.Query(ctx, query, time.Now())
	if err != nil {
		t.Fatalf("signed query: %v (server: %q)", err, refused.get())
	}
	if vec, ok := v.(model.Vector); !ok || len(vec) != 1 || vec[0].Value != 42 {
		t.Fatalf("query %s = %v, want one sample of 42", query, v)
	}

	for name, tc := range map[string]struct{ cfg, refusal string }{
		"unsigned":         {"", "no SigV4 Authorization header"},
		"wrong secret key": {write("wrong.yaml", "sigv4: {region: "+apsRegion+", access_key: "+apsAccessKey+", secret_key: not-the-secret}\n"), "signature mismatch"},
		"wrong region":     {write("region.yaml", "sigv4: {region: us-east-1, access_key: "+apsAccessKey+", secret_key: "+apsSecretKey+"}\n"), "credential scope"},
	} {
		refused.set("")
		r, err := NewReaderWithHTTPConfig(srv.URL, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := r.API.Query(ctx, query, time.Now()); err == nil || !strings.Contains(err.Error(), "403") {
			t.Errorf("%s query: %v, want a 403", name, err)
		}
		if why := refused.get(); !strings.Contains(why, tc.refusal) {
			t.Errorf("%s query refused for %q, want %q", name, why, tc.refusal)
		}
	}
}
