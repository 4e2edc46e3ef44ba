package schedule

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// privateRegistry is go-containerregistry's in-process registry behind HTTP basic auth, as a
// private registry is: a request without user:pass is refused with 401 and a body the
// events must never quote. hits counts the requests that reached it.
func privateRegistry(t *testing.T, user, pass string, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	reg := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="private"`)
			http.Error(w, "PRIVATE-BODY: log in", http.StatusUnauthorized)
			return
		}
		reg.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func dockerConfigSecret(name, host, user, pass string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Type: corev1.SecretTypeDockerConfigJson,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"` + host + `":{"username":"` + user + `","password":"` + pass + `"}}}`)}}
}

// The digest trigger reads a private registry with the template's imagePullSecrets: without
// them the registry refuses (HTTP 401, its body not in the event); a Secret missing, of
// another type or not a docker config is an event naming the field and the Secret, without
// asking the registry and without quoting the Secret; a right one reads the digest.
func TestDigestTriggerUsesTemplatePullSecrets(t *testing.T) {
	ctx := context.Background()
	var hits atomic.Int32
	srv := privateRegistry(t, "bench", "s3cret", &hits)
	host := strings.TrimPrefix(srv.URL, "http://")
	image := host + "/own:1"
	img, err := random.Image(512, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := crane.Push(img, image, crane.WithAuth(&authn.Basic{Username: "bench", Password: "s3cret"})); err != nil {
		t.Fatal(err)
	}
	digest, _ := img.Digest()

	// No pull secrets: the operator's own (empty) docker config, refused.
	h := newHarness(t, digestSchedule("private-none", image))
	h.r.InsecureRegistries = []string{host}
	h.reconcileWithin(20 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, ReasonDigestFailed) || !strings.Contains(ev, "HTTP 401") || strings.Contains(ev, "PRIVATE-BODY") {
		t.Fatalf("without pull secrets: %q", ev)
	}

	s := digestSchedule("private", image)
	s.Spec.Template.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "other"}, {Name: "creds"}}
	h = newHarness(t, s)
	h.r.InsecureRegistries = []string{host}
	step := func() (*benchv1.BenchmarkSchedule, string) {
		h.clock.Step(2 * time.Minute)
		got := h.reconcile()
		return got, strings.Join(h.drainEvents(), "\n")
	}
	// Another registry's credentials first: the keychain matches them by host.
	if err := env.Client.Create(ctx, dockerConfigSecret("other", "registry.example", "x", "y")); err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	if got, ev := step(); !strings.Contains(ev, "spec.template.spec.imagePullSecrets[1]: Secret creds not found in namespace default") ||
		len(got.Status.ImageDigests) != 0 || hits.Load() != before {
		t.Fatalf("missing Secret: %d registry requests, digests %+v, events %q", hits.Load()-before, got.Status.ImageDigests, ev)
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "creds"}, Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte("{}")}}
	if err := env.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if _, ev := step(); !strings.Contains(ev, `Secret creds is of type "Opaque", want kubernetes.io/dockerconfigjson`) || hits.Load() != before {
		t.Fatalf("Opaque Secret: %q", ev)
	}

	// A type is immutable: the Secret is made again, with JSON (the API server checks that)
	// that is not a docker config.
	if err := env.Client.Delete(ctx, secret); err != nil {
		t.Fatal(err)
	}
	secret = dockerConfigSecret("creds", host, "bench", "s3cret")
	secret.Data[corev1.DockerConfigJsonKey] = []byte(`{"auths": "SECRET-TOKEN-abc123"}`)
	if err := env.Client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if _, ev := step(); !strings.Contains(ev, "Secret creds has a .dockerconfigjson that is not a docker config") ||
		strings.Contains(ev, "SECRET-TOKEN") || strings.Contains(ev, "abc123") || hits.Load() != before {
		t.Fatalf("malformed Secret: %q", ev)
	}

	// A wrong password: the registry's refusal, not its body.
	secret.Data[corev1.DockerConfigJsonKey] = dockerConfigSecret("", host, "bench", "wrong").Data[corev1.DockerConfigJsonKey]
	if err := env.Client.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if got, ev := step(); !strings.Contains(ev, "HTTP 401") || strings.Contains(ev, "PRIVATE-BODY") || len(got.Status.ImageDigests) != 0 {
		t.Fatalf("wrong password: %+v %q", got.Status.ImageDigests, ev)
	}

	secret.Data[corev1.DockerConfigJsonKey] = dockerConfigSecret("", host, "bench", "s3cret").Data[corev1.DockerConfigJsonKey]
	if err := env.Client.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	got, ev := step()
	if len(got.Status.ImageDigests) != 1 || got.Status.ImageDigests[0] != (benchv1.ImageDigest{Image: image, Digest: digest.String()}) || strings.Contains(ev, ReasonDigestFailed) {
		t.Fatalf("with the Secret: digests %+v, events %q", got.Status.ImageDigests, ev)
	}
}
