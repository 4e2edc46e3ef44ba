package wireagent

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tokenIs admits one fixed token: the handler's tests, apart from the TokenReview.
type tokenIs string

func (want tokenIs) Authenticate(_ context.Context, token string) error {
	if token != string(want) {
		return &AuthError{http.StatusUnauthorized, "wrong token"}
	}
	return nil
}

// serveTLS serves h over TLS with a serving pair of a new CA, made at now, and returns
// the server and the CA.
func serveTLS(t *testing.T, h http.Handler, now time.Time) (*httptest.Server, []byte) {
	t.Helper()
	ca, err := NewCA(now)
	if err != nil {
		t.Fatal(err)
	}
	serving, err := NewServingCert(ca, now)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = tlsConfig(t, serving)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca.Cert
}

// testClient trusts ca and presents token (from a file, as the manager's projected one).
func testClient(t *testing.T, ca []byte, token string) *Client {
	t.Helper()
	f := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(f, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(f, ca)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func tlsConfig(t *testing.T, p Pair) *tls.Config {
	t.Helper()
	pair, err := tls.X509KeyPair(p.Cert, p.Key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
