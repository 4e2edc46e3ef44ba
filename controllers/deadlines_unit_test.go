package controllers

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gauntlet-bench/gauntlet/internal/verify"
)

// Invalid and BadRequest are refusals for good; anything else is retried.
func TestCreateErrorClassifies(t *testing.T) {
	dep := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "run-go"}}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "run-go", field.ErrorList{
		field.Invalid(field.NewPath("spec", "template", "spec", "containers").Index(0).Child("resources", "requests").Key("cpu"), "-1", "must be greater than or equal to 0")})
	cases := []struct {
		err     error
		refused bool
	}{
		{invalid, true},
		{apierrors.NewBadRequest("bad"), true},
		{apierrors.NewConflict(schema.GroupResource{Resource: "deployments"}, "run-go", errors.New("changed")), false},
		{apierrors.NewServiceUnavailable("etcd"), false},
		{apierrors.NewForbidden(schema.GroupResource{Resource: "deployments"}, "run-go", errors.New("quota exceeded")), false},
	}
	for _, c := range cases {
		err := createError(dep, c.err)
		var refused *refusedError
		if errors.As(err, &refused) != c.refused {
			t.Errorf("%v: refused = %v, want %v", c.err, !c.refused, c.refused)
		}
		if c.refused && (!strings.Contains(err.Error(), "the API server refused Deployment run-go") || !strings.Contains(err.Error(), c.err.Error())) {
			t.Errorf("message %q does not carry the API server's", err)
		}
	}
}

// One job per run and target, done without waiting, cut off at its deadline; a run's jobs
// are forgotten together.
func TestVerificationJobs(t *testing.T) {
	var v verifications
	release := make(chan struct{})
	calls := 0
	slow := func(ctx context.Context) (verify.Report, error) {
		calls++
		select {
		case <-release:
		case <-ctx.Done():
		}
		return verify.Report{}, nil
	}
	now := time.Now()
	a, _ := v.start(verifyKey("uid-1", "go"), "ns", now, time.Minute, verifyLimits{}, slow)
	if again, _ := v.start(verifyKey("uid-1", "go"), "ns", now, time.Minute, verifyLimits{}, slow); again != a || a.finished() {
		t.Fatalf("a second start made another job, or the first is done before release")
	}
	close(release)
	<-a.done
	if !a.finished() || a.err != nil || calls != 1 {
		t.Errorf("finished %v, err %v, calls %d", a.finished(), a.err, calls)
	}
	cut, _ := v.start(verifyKey("uid-1", "node"), "ns", now, 50*time.Millisecond, verifyLimits{}, func(ctx context.Context) (verify.Report, error) {
		<-ctx.Done()
		return verify.Report{}, nil // a verifier that reports nothing about the deadline
	})
	<-cut.done
	if !errors.Is(cut.err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", cut.err)
	}
	_, _ = v.start(verifyKey("uid-2", "go"), "ns", now, time.Minute, verifyLimits{}, func(context.Context) (verify.Report, error) { return verify.Report{}, nil })
	v.forgetRun("uid-1")
	if len(v.jobs) != 1 {
		t.Errorf("jobs left %v, want uid-2's only", v.jobs)
	}
}
