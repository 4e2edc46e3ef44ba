package wireagent

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	authv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/wire"
)

// countingReviews counts the TokenReviews the agent asks for.
type countingReviews struct {
	authv1client.TokenReviewInterface
	n atomic.Int32
}

func (c *countingReviews) Create(ctx context.Context, r *authenticationv1.TokenReview, o metav1.CreateOptions) (*authenticationv1.TokenReview, error) {
	c.n.Add(1)
	return c.TokenReviewInterface.Create(ctx, r, o)
}

// The agent behind TLS, reviewing tokens with a real API server (envtest's kube-apiserver
// signs service-account tokens and reviews them): the manager's token for the agents'
// audience is admitted, and its positive review cached; another service account's token,
// the manager's token for another audience, no token and plain HTTP are each refused with
// a status and a reason; an agent that cannot review (no RBAC) refuses with 503.
func TestAgentAdmitsOnlyTheManagersToken(t *testing.T) {
	testenv.Long(t)
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "gauntlet-system"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := func(sa, audience string) string {
		t.Helper()
		if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, sa, metav1.GetOptions{}); err != nil {
			if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			Audiences: []string{audience}, ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	reviews := &countingReviews{TokenReviewInterface: cs.AuthenticationV1().TokenReviews()}
	const caller = "system:serviceaccount:" + ns + ":gauntlet-manager"
	capture := func(wire.Endpoint) (Running, error) { return canned{}, nil }
	agent, ca := serveTLS(t, (&Server{Capture: capture, Auth: &TokenReviewer{Reviews: reviews, Audience: Audience, Caller: caller}}).Handler(), time.Now())
	start := func(c *Client, id string) error {
		return c.Start(ctx, agent.URL, StartRequest{ID: id, PodIP: "10.0.0.1", Port: 80, Seconds: 5})
	}

	manager := testClient(t, ca, token("gauntlet-manager", Audience))
	for i := range 3 {
		if err := start(manager, "ok"); err != nil {
			t.Fatalf("the manager's token, call %d: %v", i, err)
		}
	}
	if n := reviews.n.Load(); n != 1 {
		t.Errorf("three calls with one token asked for %d TokenReviews: want 1, the rest from the cache", n)
	}

	for _, c := range []struct {
		what, token, want string
	}{
		{"another service account's token", token("intruder", Audience), "403 Forbidden: system:serviceaccount:" + ns + ":intruder may not call the wire agent: only " + caller + " may"},
		{"the manager's token for the API server's audience", token("gauntlet-manager", "https://kubernetes.default.svc"), "401 Unauthorized: token refused for audience " + Audience},
		{"a token no one signed", "eyJhbGciOiJub25lIn0.e30.", "401 Unauthorized: token refused for audience " + Audience},
	} {
		before := reviews.n.Load()
		for range 2 {
			err := start(testClient(t, ca, c.token), "x")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: got %v, want %q", c.what, err, c.want)
			}
		}
		if n := reviews.n.Load() - before; n != 2 {
			t.Errorf("%s: %d TokenReviews for two calls: a refusal must not be cached", c.what, n)
		}
	}

	// No token at all: the client refuses to call without one; a bare request is refused.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, agent.URL+"/v1/captures/ok", nil)
	resp, err := manager.http.Load().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "no bearer token") {
		t.Errorf("no token: %d %q, want 401 naming the missing token", resp.StatusCode, body)
	}
	if err := os.WriteFile(manager.TokenFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := start(manager, "ok"); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("an empty token file: %v, want the client to refuse", err)
	}

	// Plain HTTP on the agent's port: refused before any handler runs.
	resp, err = http.Get("http://" + agent.Listener.Addr().String() + "/v1/captures/ok")
	if err != nil {
		t.Fatal(err)
	}
	body = readAll(t, resp)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "HTTP request to an HTTPS server") {
		t.Errorf("plain HTTP: %d %q, want 400", resp.StatusCode, body)
	}

	// An agent whose service account may not create TokenReviews refuses with 503.
	norbac := rest.CopyConfig(env.Config)
	norbac.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":wire-agent", Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	weak, err := kubernetes.NewForConfig(norbac)
	if err != nil {
		t.Fatal(err)
	}
	blind, bca := serveTLS(t, (&Server{Capture: capture, Auth: &TokenReviewer{Reviews: weak.AuthenticationV1().TokenReviews(), Audience: Audience, Caller: caller}}).Handler(), time.Now())
	err = testClient(t, bca, token("gauntlet-manager", Audience)).Start(ctx, blind.URL, StartRequest{ID: "x", PodIP: "10.0.0.1", Port: 80, Seconds: 5})
	if err == nil || !strings.Contains(err.Error(), "503 Service Unavailable: cannot review the token with the API server") || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("an agent without RBAC for tokenreviews: %v, want 503 naming the failed review", err)
	}
}

// The client trusts only the CA it was given, and the agents' name in its certificate:
// a server with another CA's certificate, or the right CA's certificate for another name,
// is refused before the token is sent.
func TestClientTrustsOnlyItsCA(t *testing.T) {
	now := time.Now()
	var sawToken atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawToken.Store(r.Header.Get("Authorization") != "")
		writeJSON(w, http.StatusCreated, Figures{})
	})
	right, ca := serveTLS(t, h, now)
	if err := testClient(t, ca, "s3cret").Start(context.Background(), right.URL, StartRequest{}); err != nil {
		t.Fatalf("the agent with the CA's certificate: %v", err)
	}
	sawToken.Store(false)

	other, _ := serveTLS(t, h, now)
	err := testClient(t, ca, "s3cret").Start(context.Background(), other.URL, StartRequest{})
	if err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("a server with another CA's certificate: %v, want unknown authority", err)
	}

	caPair, _ := NewCA(now)
	wrongName, err := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "other"}, DNSNames: []string{"other"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, caPair)
	if err != nil {
		t.Fatal(err)
	}
	named := httptest.NewUnstartedServer(h)
	named.TLS = tlsConfig(t, wrongName)
	named.StartTLS()
	t.Cleanup(named.Close)
	err = testClient(t, caPair.Cert, "s3cret").Start(context.Background(), named.URL, StartRequest{})
	if err == nil || !strings.Contains(err.Error(), "certificate is valid for other, not "+ServerName) {
		t.Errorf("the CA's certificate for another name: %v, want a name mismatch", err)
	}
	if sawToken.Load() {
		t.Error("a refused server received the token")
	}
}
