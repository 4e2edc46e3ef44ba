package enginetest

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/engine"
	"github.com/gauntlet-bench/gauntlet/internal/testenv"
)

// The check passes what the engine decides and fails a run that claims more than its rows.
func TestConclusiveCheck(t *testing.T) {
	for name, valid := range map[string]bool{"seed-001-keepalive-off": false, "seed-000-smart-home": true} {
		run, err := Load(testenv.Root(), name)
		if err != nil {
			t.Fatal(err)
		}
		if !valid {
			// No recorded run is without a valid row since GeneratorLimited left the
			// target-limited rows valid: k6 sharing the targets' CPU flags every row.
			run.Status.Placement = &benchv1.Placement{Shared: true}
		}
		engine.Finish(run, time.Now(), nil)
		engine.GitOps(run)
		if wrong, says := Conclusive(run); wrong != "" || !strings.Contains(says, map[bool]string{true: "Conclusive=True", false: "exit 7"}[valid]) {
			t.Errorf("%s decided by the engine: %q (%s)", name, wrong, says)
		}
		// Ready True on a run with no valid row, or Ready False on a conclusive one.
		engine.SetCondition(run, benchv1.ConditionReady, map[bool]metav1.ConditionStatus{true: "False", false: "True"}[valid], "Forged", "")
		if wrong, _ := Conclusive(run); wrong == "" {
			t.Errorf("%s with a forged Ready passed the check", name)
		}
	}
}
