package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// A run whose spec.imagePullSecrets names a Secret that is missing, or not a pull secret,
// fails before it creates anything: Accepted=False and a Warning event naming the field and
// the Secret, never its content. A run naming a real pull secret goes ahead.
func TestRunPullSecretsAreChecked(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	const leak = "do-not-print-this-token"
	secrets := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "pull-ok", Namespace: "default"}, Type: corev1.SecretTypeDockerConfigJson,
			Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte(`{"auths":{"registry.example":{"auth":"` + leak + `"}}}`)}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pull-opaque", Namespace: "default"}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"token": []byte(leak)}},
	}
	for _, s := range secrets {
		if err := env.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, s) })
	}

	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	missing, opaque, ok := pingRun("pull-missing"), pingRun("pull-opaque"), pingRun("pull-ok")
	missing.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "pull-ok"}, {Name: "pull-nowhere"}}
	opaque.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "pull-opaque"}}
	ok.Spec.ImagePullSecrets = []benchv1.ImagePullSecret{{Name: "pull-ok"}}
	for _, run := range []*benchv1.BenchmarkRun{missing, opaque, ok} {
		fakes.script(run.Name, &k6Outcome{hold: hold})
		if err := env.Client.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = env.Client.Delete(ctx, run) })
	}

	for _, tc := range []struct {
		run  *benchv1.BenchmarkRun
		want []string
	}{
		{missing, []string{"spec.imagePullSecrets[1]", "pull-nowhere", "not found"}},
		{opaque, []string{"spec.imagePullSecrets[0]", "pull-opaque", `"Opaque"`, "kubernetes.io/dockerconfigjson"}},
	} {
		got := waitOn(t, env.Client, client.ObjectKeyFromObject(tc.run), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
			return r.Status.Phase == benchv1.PhaseFailed
		})
		c := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionAccepted)
		if c == nil || c.Status != metav1.ConditionFalse || c.Reason != benchv1.ReasonImagePullSecretInvalid {
			t.Errorf("%s: Accepted = %+v, want False with reason %s", tc.run.Name, c, benchv1.ReasonImagePullSecretInvalid)
		} else {
			for _, w := range tc.want {
				if !strings.Contains(c.Message, w) {
					t.Errorf("%s: Accepted message %q does not name %s", tc.run.Name, c.Message, w)
				}
			}
			if strings.Contains(c.Message, leak) {
				t.Errorf("%s: Accepted message quotes the Secret: %q", tc.run.Name, c.Message)
			}
		}
		if len(got.Status.Trials) != 0 {
			t.Errorf("%s: the refused run planned %d trials", tc.run.Name, len(got.Status.Trials))
		}
		deps := &appsv1.DeploymentList{}
		if err := env.Client.List(ctx, deps, client.InNamespace("default"), client.MatchingLabels{specs.LabelRun: tc.run.Name}); err != nil {
			t.Fatal(err)
		}
		if len(deps.Items) > 0 {
			t.Errorf("%s: the refused run created %d Deployments", tc.run.Name, len(deps.Items))
		}
		waitEvent(t, "default", tc.run.Name, benchv1.ReasonImagePullSecretInvalid, tc.want[0])
	}
	var events eventsv1.EventList
	if err := env.Client.List(ctx, &events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Note, leak) {
			t.Errorf("event %s of %s quotes a Secret: %q", e.Reason, e.Regarding.Name, e.Note)
		}
	}

	waitOn(t, env.Client, client.ObjectKeyFromObject(ok), 30*time.Second, func(r *benchv1.BenchmarkRun) bool {
		return meta.IsStatusConditionTrue(r.Status.Conditions, benchv1.ConditionAccepted)
	})
}
