package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A target that passes verification and then answers every load request with 500 (the
// real go target behind a proxy that fails k6's requests): real k6 measures 100% errors,
// and the run is Failed with Complete=False, reason AllRequestsFailed, not Succeeded.
func TestAllRequestsFailedIsNotSuccess(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	backend, _ := url.Parse(target.url)
	proxy := httputil.NewSingleHostReverseProxy(backend)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.UserAgent(), "k6") { // the load, not the verifier
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(failing.Close)
	run := pingRun("all-errors")
	urlsMu.Lock()
	urls[run.Namespace+"/"+run.Name+"/go"] = failing.URL
	urlsMu.Unlock()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 90*time.Second, finished)
	cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
	if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != benchv1.ReasonAllRequestsFailed {
		t.Fatalf("phase %s, Complete %+v, trials %+v", got.Status.Phase, cond, got.Status.Trials)
	}
	if !strings.Contains(cond.Message, "100% errors") {
		t.Errorf("message %q", cond.Message)
	}
	m := got.Status.Trials[0].Result
	if m == nil || m.Requests == 0 || m.Errors != m.Requests {
		t.Errorf("trial result %+v, want every request counted as an error", m)
	}
	if ready := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionReady); ready == nil || ready.Status != metav1.ConditionFalse {
		t.Errorf("Ready = %+v, want False", ready)
	}
	t.Log(cond.Message)
}

// A target that passes verification and then redirects every load request (those carrying
// Gauntlet-Phase, which the verifier never sends) to another host: through the operator and
// real k6, the target receives the load, the other host receives nothing, and every
// redirected request is an error of the run (AllRequestsFailed), never a figure of the host
// the redirect names.
func TestARedirectingTargetGetsTheLoadAndNothingElseDoes(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	var sinkHits, redirected atomic.Int64
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sinkHits.Add(1)
		_, _ = w.Write([]byte(`{"pong":true}`))
	}))
	t.Cleanup(sink.Close)
	backend, _ := url.Parse(target.url)
	proxy := httputil.NewSingleHostReverseProxy(backend)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Gauntlet-Phase") != "" {
			redirected.Add(1)
			http.Redirect(w, r, sink.URL+r.URL.Path, http.StatusFound)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(redirecting.Close)
	run := pingRun("redirects-load")
	urlsMu.Lock()
	urls[run.Namespace+"/"+run.Name+"/go"] = redirecting.URL
	urlsMu.Unlock()
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 90*time.Second, finished)

	if got.Status.Targets[0].Verification != benchv1.VerificationPassed {
		t.Fatalf("verification %s: the redirecting target must pass it for the load to reach it (%v)",
			got.Status.Targets[0].Verification, got.Status.Targets[0].FailedChecks)
	}
	if n := sinkHits.Load(); n != 0 {
		t.Errorf("the host the redirects name received %d requests; nothing but the target may", n)
	}
	m := got.Status.Trials[0].Result
	if m == nil || m.Requests == 0 || m.Errors != m.Requests || redirected.Load() < m.Requests {
		t.Errorf("trial result %+v, the target redirected %d: want the load at the target, every request an error", m, redirected.Load())
	}
	cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
	if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != benchv1.ReasonAllRequestsFailed {
		t.Errorf("phase %s, Complete %+v: want Failed, AllRequestsFailed", got.Status.Phase, cond)
	}
}
