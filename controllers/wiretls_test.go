package controllers

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// The agents' TLS Secret: created once with a CA and a serving certificate for the agents'
// name; kept as it is on the manager's restart; the serving certificate renewed (by the
// same CA) once less than a third of its validity is left, the CA too near its own end
// (the bundle then trusting the old CA beside the new); a broken key repaired.
func TestWireTLSSecret(t *testing.T) {
	testenv.Long(t)
	const ns, name = "wire-tls", "wire-agent-tls"
	ctx := context.Background()
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	read := func() *corev1.Secret {
		t.Helper()
		s := &corev1.Secret{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	ca, err := EnsureWireTLS(ctx, env.Client, ns, name, now)
	if err != nil {
		t.Fatal(err)
	}
	first := read()
	if !bytes.Equal(ca, first.Data[wireagent.CACertKey]) || first.Type != corev1.SecretTypeTLS {
		t.Fatalf("returned CA differs from the Secret's, or type %s", first.Type)
	}
	if err := wireagent.Verify(ca, first.Data[wireagent.CertKey], now); err != nil {
		t.Fatalf("the serving certificate does not verify for %s against the CA: %v", wireagent.ServerName, err)
	}
	if _, err := tls.X509KeyPair(first.Data[wireagent.CertKey], first.Data[wireagent.KeyKey]); err != nil {
		t.Fatalf("tls.crt and tls.key are no pair: %v", err)
	}

	// A restart a day later: nothing changes.
	again, err := EnsureWireTLS(ctx, env.Client, ns, name, now.Add(24*time.Hour))
	if err != nil || !bytes.Equal(again, ca) || read().ResourceVersion != first.ResourceVersion {
		t.Fatalf("restart: CA kept %v, Secret untouched %v (%v)", bytes.Equal(again, ca), read().ResourceVersion == first.ResourceVersion, err)
	}

	// 61 days on, 29 of the serving certificate's 90 are left: renewed, by the same CA.
	later := now.Add(61 * 24 * time.Hour)
	renewedCA, err := EnsureWireTLS(ctx, env.Client, ns, name, later)
	if err != nil {
		t.Fatal(err)
	}
	renewed := read()
	if !bytes.Equal(renewedCA, ca) || bytes.Equal(renewed.Data[wireagent.CertKey], first.Data[wireagent.CertKey]) ||
		!bytes.Equal(renewed.Data[wireagent.CAKeyKey], first.Data[wireagent.CAKeyKey]) {
		t.Fatal("near its end the serving certificate was not renewed by the same CA")
	}
	if err := wireagent.Verify(ca, renewed.Data[wireagent.CertKey], later.Add(60*24*time.Hour)); err != nil {
		t.Errorf("the renewed certificate: %v", err)
	}

	// 7 years on, 3 of the CA's 10 are left: a new CA signs a new pair; the bundle trusts
	// both CAs while agents still serve the old pair.
	far := now.Add(7 * 365 * 24 * time.Hour)
	bundle, err := EnsureWireTLS(ctx, env.Client, ns, name, far)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := certutil.ParseCertsPEM(bundle)
	if err != nil || len(certs) != 2 || !bytes.Contains(bundle, ca) || bytes.HasPrefix(bundle, ca) {
		t.Fatalf("bundle after the CA's renewal: %d certificates (%v), want the new CA first and the old after", len(certs), err)
	}
	if err := wireagent.Verify(bundle, read().Data[wireagent.CertKey], far); err != nil {
		t.Errorf("the pair after the CA's renewal: %v", err)
	}

	// A key overwritten by hand: the next start repairs the Secret.
	broken := read()
	broken.Data[wireagent.KeyKey] = []byte("garbage")
	if err := env.Client.Update(ctx, broken); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureWireTLS(ctx, env.Client, ns, name, far); err != nil {
		t.Fatal(err)
	}
	if _, err := tls.X509KeyPair(read().Data[wireagent.CertKey], read().Data[wireagent.KeyKey]); err != nil {
		t.Errorf("a Secret with a broken tls.key was not repaired: %v", err)
	}
}

// tokenIs admits one fixed token: the reconciler's tests, which the TokenReview's
// (internal/wireagent) do not repeat.
type tokenIs string

func (want tokenIs) Authenticate(_ context.Context, token string) error {
	if token != string(want) {
		return &wireagent.AuthError{Status: http.StatusUnauthorized, Reason: "wrong token"}
	}
	return nil
}

// wireAgent serves h over TLS with the pair of the agents' TLS Secret in ns, as the
// DaemonSet does, and returns its port and a client trusting that Secret's CA.
func wireAgent(t *testing.T, ns string, h http.Handler) (int, *wireagent.Client) {
	t.Helper()
	ctx := context.Background()
	ca, err := EnsureWireTLS(ctx, env.Client, ns, "wire-tls", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	s := &corev1.Secret{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "wire-tls"}, s); err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(s.Data[wireagent.CertKey], s.Data[wireagent.KeyKey])
	if err != nil {
		t.Fatal(err)
	}
	agent := httptest.NewUnstartedServer(h)
	agent.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13}
	agent.StartTLS()
	t.Cleanup(agent.Close)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := wireagent.NewClient(tokenFile, ca)
	if err != nil {
		t.Fatal(err)
	}
	_, portText, _ := net.SplitHostPort(agent.Listener.Addr().String())
	port, _ := strconv.Atoi(portText)
	return port, c
}
