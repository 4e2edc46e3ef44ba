package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/test/hostile"
)

// Hostile targets next to a good one: the operator records each as failed verification, with
// a bounded message that says what it did, never follows the redirect, and measures the good
// target to the end. (The slow target is in internal/verify's test: here it would hold the
// worker for a minute of request timeouts.)
func TestHostileTargetsAreRecordedAndTheRunGoesOn(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := pingRun("hostile")
	want := map[string]string{}
	servers := map[string]*hostile.Server{}
	for name, c := range map[string]struct {
		mode hostile.Mode
		says string
	}{
		"endless":  {hostile.EndlessBody, "body larger than 65536 bytes"},
		"headers":  {hostile.HugeHeaders, "headers exceeded 65536 bytes"},
		"redirect": {hostile.Redirect, "a redirect to"},
		"cut":      {hostile.CloseMidResponse, "unexpected EOF"},
	} {
		srv, err := hostile.Start(c.mode)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		servers[name], want[name] = srv, c.says
		run.Spec.Targets = append(run.Spec.Targets, benchv1.Target{Name: name, Image: "registry.example/" + name + ":1", Port: ptr.To[int32](8080)})
		urlsMu.Lock()
		urls[run.Namespace+"/"+run.Name+"/"+name] = srv.URL
		urlsMu.Unlock()
	}
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 90*time.Second, finished)

	complete := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
	if complete == nil || complete.Status != metav1.ConditionTrue {
		t.Errorf("Complete = %+v: the run did not go on to the end", complete)
	}
	for _, tr := range got.Status.Trials {
		switch {
		case tr.Target == "go" && tr.Phase != benchv1.TrialSucceeded:
			t.Errorf("the good target's trial %s is %s: %s", tr.Name, tr.Phase, tr.Message)
		case tr.Target != "go" && (tr.Phase != benchv1.TrialFailed || tr.TestRun != "" || !strings.Contains(tr.Message, "not timed")):
			t.Errorf("hostile target's trial %+v was timed or not marked", tr)
		}
	}
	for _, ts := range got.Status.Targets {
		if ts.Name == "go" {
			continue
		}
		checks := strings.Join(ts.FailedChecks, "\n")
		if ts.Verification != benchv1.VerificationFailed || !strings.Contains(checks, want[ts.Name]) {
			t.Errorf("%s: verification %s, failed checks do not say %q:\n%s", ts.Name, ts.Verification, want[ts.Name], checks)
		}
		if len(ts.FailedChecks) > benchv1.MaxFailedChecks {
			t.Errorf("%s: %d failed checks in status", ts.Name, len(ts.FailedChecks))
		}
		for _, c := range ts.FailedChecks {
			if len(c) > benchv1.MaxFailedCheckLength {
				t.Errorf("%s: failed check of %d bytes", ts.Name, len(c))
			}
		}
		t.Logf("%s: %d failed checks, first: %s", ts.Name, len(ts.FailedChecks), ts.FailedChecks[0])
	}
	for name, srv := range servers {
		if srv.SinkHits() != 0 {
			t.Errorf("%s: the operator reached the redirect's target", name)
		}
	}
}

// An object in the way that is not the run's (another run's, or made by hand) is never taken
// as the run's own: the run fails naming it, and the object is left alone.
func TestAnObjectInTheWayIsNotTakenAsOurs(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := pingRun("in-the-way")
	squatter := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: specs.TargetName(run, "go"), Namespace: run.Namespace},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if err := env.Client.Create(ctx, squatter); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, squatter) })
	if err := env.Client.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
	cond := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionTargetsReady)
	if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Reason != benchv1.ReasonNameConflict ||
		!strings.Contains(cond.Message, "Service default/"+squatter.Name+" already exists and is not this run's") {
		t.Fatalf("phase %s, TargetsReady %+v: want Failed with NameConflict naming the Service", got.Status.Phase, cond)
	}
	t.Logf("TargetsReady: %s", cond.Message)
	left := &corev1.Service{}
	if err := env.Client.Get(ctx, client.ObjectKeyFromObject(squatter), left); err != nil || len(left.OwnerReferences) != 0 {
		t.Errorf("the Service in the way was changed or removed: %v %+v", err, left.OwnerReferences)
	}
	if got.Status.Trials[0].TestRun != "" {
		t.Errorf("a trial ran against an object that is not the run's: %+v", got.Status.Trials[0])
	}
}
