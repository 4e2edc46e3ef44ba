package schedule

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// digestSchedule is a schedule whose one target's image is image, with the digest trigger.
func digestSchedule(name, image string) *benchv1.BenchmarkSchedule {
	tpl := pingTemplate()
	tpl.Spec.Targets = []benchv1.Target{{Name: "own", Image: image, Port: ptr.To[int32](8080)}}
	return &benchv1.BenchmarkSchedule{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: benchv1.BenchmarkScheduleSpec{Schedule: "0 0 1 1 *", Template: tpl,
			Triggers: &benchv1.ScheduleTriggers{ImageDigests: true, PollInterval: &metav1.Duration{Duration: time.Minute}}}}
}

// reconcileWithin fails the test when one pass takes longer than limit (a hung pass would
// otherwise hang the test).
func (h *harness) reconcileWithin(limit time.Duration) {
	h.t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: h.key})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			h.t.Fatal(err)
		}
	case <-time.After(limit):
		h.t.Fatalf("a pass took over %s", limit)
	}
}

// A registry that accepts connections and never answers costs a pass at most the registry
// timeout: the schedule's times, and every other schedule, go on.
func TestHangingRegistryIsCutShort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never answered
		}
	}()
	host := ln.Addr().String()
	h := newHarness(t, digestSchedule("hang", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.r.RegistryTimeout = 300 * time.Millisecond
	h.reconcileWithin(5 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, ReasonDigestFailed) || !strings.Contains(ev, "no answer") {
		t.Fatalf("%s", ev)
	}
}

// A registry's response body never reaches an event (its bytes are the tenant's: escape
// sequences, a fake message); its status code does.
func TestRegistryBodyNotInEvents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("\x1b[2J\x1b[31mEVIL: click http://phish.example\x07"))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	h := newHarness(t, digestSchedule("body", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.reconcileWithin(20 * time.Second)
	ev := strings.Join(h.drainEvents(), "\n")
	if !strings.Contains(ev, "HTTP 500") || strings.Contains(ev, "EVIL") || strings.ContainsAny(ev, "\x1b\x07") {
		t.Fatalf("%q", ev)
	}
}

// Plain HTTP to a loopback or private registry is refused unless the operator lists it;
// an image outside --allowed-registries is refused without contacting its registry; each
// says which field or flag.
func TestRegistryPolicy(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	h := newHarness(t, digestSchedule("plainhttp", host+"/own:1"))
	h.reconcileWithin(20 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, "plain HTTP refused") || hits.Load() != 0 {
		t.Fatalf("%d requests; %s", hits.Load(), ev)
	}

	h = newHarness(t, digestSchedule("notallowed", host+"/own:1"))
	h.r.InsecureRegistries = []string{host}
	h.r.AllowedRegistries = []string{"ghcr.io/acme"}
	h.reconcileWithin(20 * time.Second)
	if ev := strings.Join(h.drainEvents(), "\n"); !strings.Contains(ev, "spec.template.spec.targets[0].image") || hits.Load() != 0 {
		t.Fatalf("%d requests; %s", hits.Load(), ev)
	}
}
