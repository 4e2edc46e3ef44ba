package controllers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// pingRun is a small run of the Go target on the ping scenario.
func pingRun(name string) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: benchv1.BenchmarkRunSpec{
			Targets:   []benchv1.Target{{Name: "go", Preset: "go-nethttp"}},
			Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
			Load:      benchv1.Load{Rates: []int32{100}, Warmup: "1s", Duration: "1s", Repetitions: 1},
			Cleanup:   benchv1.Cleanup{Policy: "Never"},
		},
	}
}

// Each failure ends the run in Failed with the step condition and a message a user
// understands; GitOps tools see Stalled.
func TestFailuresAreExplained(t *testing.T) {
	testenv.Long(t)
	// A target that is up but answers /api/ping wrongly.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			_, _ = w.Write([]byte(`{"status":"ok"}`))
			return
		}
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)

	cases := []struct {
		name      string
		setup     func(run *benchv1.BenchmarkRun)
		condition string
		reason    string
		message   []string
		testRuns  bool // whether a TestRun may exist
	}{
		{"database-never-ready", func(run *benchv1.BenchmarkRun) {
			run.Spec.Database = &benchv1.Database{ConnectVia: benchv1.ConnectViaDirect}
			fakes.mu.Lock()
			fakes.dbNever[specs.ClusterName(run)] = true
			fakes.mu.Unlock()
		}, benchv1.ConditionDatabaseReady, benchv1.ReasonDatabaseTimeout,
			[]string{"did not become ready within 8s", `phase "Setting up primary"`, "Creating primary instance"}, false},
		{"target-fails-verification", func(run *benchv1.BenchmarkRun) {
			urlsMu.Lock()
			urls[run.Namespace+"/"+run.Name+"/go"] = broken.URL
			urlsMu.Unlock()
		}, benchv1.ConditionTargetsVerified, benchv1.ReasonVerifyFailed, []string{"go failed verification", "not-found: GET unknown path: status: expected 404, got 500", "not timed"}, false},
		{"testrun-error", func(run *benchv1.BenchmarkRun) {
			fakes.script(run.Name, &k6Outcome{errorStage: specs.StageInitialization})
		}, benchv1.ConditionComplete, benchv1.ReasonTrialFailed, []string{"trial go.ping.100.r1 failed", "k6-operator reported an error", "initializer pod failed"}, true},
		{"thresholds-crossed", func(run *benchv1.BenchmarkRun) {
			fakes.script(run.Name, &k6Outcome{exitCode: 99})
		}, benchv1.ConditionComplete, benchv1.ReasonTrialFailed, []string{"trial go.ping.100.r1 failed", "k6 thresholds were crossed", "exit code 99"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			run := pingRun("fail-" + c.name)
			c.setup(run)
			if err := env.Client.Create(ctx, run); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
			got := waitOn(t, env.Client, client.ObjectKeyFromObject(run), 60*time.Second, finished)
			cond := meta.FindStatusCondition(got.Status.Conditions, c.condition)
			if got.Status.Phase != benchv1.PhaseFailed || cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != c.reason {
				t.Fatalf("phase %s, %s = %+v", got.Status.Phase, c.condition, cond)
			}
			for _, m := range c.message {
				if !strings.Contains(cond.Message, m) {
					t.Errorf("message %q does not say %q", cond.Message, m)
				}
			}
			t.Logf("%s: %s", c.condition, cond.Message)
			if stalled := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionStalled); stalled == nil ||
				stalled.Status != metav1.ConditionTrue || stalled.Message != cond.Message {
				t.Errorf("Stalled = %+v, want True with the same message", stalled)
			}
			if c.condition == benchv1.ConditionTargetsVerified && (len(got.Status.Targets) != 1 ||
				got.Status.Targets[0].Verification != benchv1.VerificationFailed || len(got.Status.Targets[0].FailedChecks) == 0) {
				t.Errorf("status.targets %+v, want go Failed with its failed checks", got.Status.Targets)
			}
			if !c.testRuns && got.Status.Trials[0].TestRun != "" {
				t.Errorf("trial was timed: %+v", got.Status.Trials[0])
			}
			if c.testRuns && got.Status.Trials[0].Phase != benchv1.TrialFailed {
				t.Errorf("trial %+v, want Failed", got.Status.Trials[0])
			}
		})
	}
}
