package compare

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// node is go's candidate: its rows are judged against go's rows of the same run, go's
// against nothing; status.verdict names the pair, the shift and the counts.
func TestSameRunPairs(t *testing.T) {
	run := runWith("ab", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {110, 111, 112, 113, 114}}, false)
	run.Spec.Targets[1].BaselineTarget = "go"
	o, _ := OptionsFrom(nil)
	Apply(run, nil, "", o)
	rows := run.Status.Results
	if rows[0].Baseline != nil {
		t.Fatalf("the baseline target itself was judged: %+v", rows[0].Baseline)
	}
	c := rows[1].Baseline
	if c == nil || c.Verdict != benchv1.VerdictSlower || c.BaselineTarget != "go" || c.BaselineMicros != 102 || c.Micros != 112 {
		t.Fatalf("node against go: %+v", c)
	}
	if c.MinDetectablePPM == nil || *c.MinDetectablePPM < 50_000 {
		t.Fatalf("minimum detectable effect %v: never below the minimum effect", c.MinDetectablePPM)
	}
	if ref := run.Status.Baseline; ref == nil || ref.Run != "" || ref.Pairs != "node vs go" {
		t.Fatalf("status.baseline %+v", ref)
	}
	if !strings.HasPrefix(run.Status.Verdict, "node/ping@500 vs go: Slower +9.8% [") || !strings.HasSuffix(run.Status.Verdict, "(1 Slower)") {
		t.Fatalf("status.verdict %q", run.Status.Verdict)
	}
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if cond == nil || cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, "against node vs go") {
		t.Fatalf("Regressed %+v", cond)
	}

	// With a baseline run too, the pair keeps its in-run baseline and the other rows compare
	// with that run.
	before := runWith("before", map[string][]int64{"go": {100, 101, 102, 103, 104}, "node": {300, 300, 300, 300, 300}}, false)
	Apply(run, before, "default/before", o)
	if c := run.Status.Results[1].Baseline; c.BaselineTarget != "go" || c.Verdict != benchv1.VerdictSlower {
		t.Fatalf("pair after a run baseline: %+v", c)
	}
	if c := run.Status.Results[0].Baseline; c == nil || c.BaselineTarget != "" || c.Verdict != benchv1.VerdictNoChange {
		t.Fatalf("go against the run: %+v", c)
	}
}

// A noisy row reports how small a change it could have seen; a quiet one detects the
// minimum effect itself.
func TestMinDetectableEffect(t *testing.T) {
	quiet := Judge([]int64{1000, 1001, 1002, 1003, 1004}, []int64{1000, 1002, 1001, 1003, 1004}, 50_000)
	noisy := Judge([]int64{1000, 1300, 800, 1200, 900}, []int64{1100, 850, 1250, 950, 1000}, 50_000)
	if quiet.MinDetectablePPM == nil || *quiet.MinDetectablePPM != 50_000 {
		t.Fatalf("quiet: %v", quiet.MinDetectablePPM)
	}
	if noisy.MinDetectablePPM == nil || *noisy.MinDetectablePPM < 300_000 || noisy.Verdict != benchv1.VerdictInconclusive {
		t.Fatalf("noisy: %v %s", noisy.MinDetectablePPM, noisy.Verdict)
	}
	if few := Judge([]int64{1, 2, 3}, []int64{1, 2, 3}, 50_000); few.MinDetectablePPM != nil {
		t.Fatalf("3 a side detects nothing, not %d", *few.MinDetectablePPM)
	}
}

// A baseline run on other machines: a Slower row is not called a regression; the same
// verdicts on the same machines are.
func TestEnvironmentDiff(t *testing.T) {
	m := func(cpu, kernel string) *benchv1.Environment {
		return &benchv1.Environment{Mode: "Cluster", Nodes: []benchv1.NodeFingerprint{
			{Name: "a", Role: "Targets", InstanceType: "c7g.xlarge", CPUModel: cpu, CPUs: 4, Kernel: kernel},
			{Name: "b", Role: "Generator", InstanceType: "c7i.2xlarge", CPUs: 8, Kernel: kernel}},
			Images: []benchv1.ImageFingerprint{{Target: "go", Runtime: "go 1.26.8", Digest: "sha256:0123456789abcdef0123"}}}
	}
	if d := EnvironmentDiff(m("V1", "6.1"), m("V1", "6.1")); len(d) != 0 {
		t.Fatalf("same machines: %v", d)
	}
	moved := m("V1", "6.1")
	moved.Nodes[0].Name = "c" // a new node of the same kind is the same machine
	if d := EnvironmentDiff(m("V1", "6.1"), moved); len(d) != 0 {
		t.Fatalf("renamed node: %v", d)
	}
	d := EnvironmentDiff(m("V1", "6.1"), m("V2", "6.6"))
	if len(d) != 2 || !strings.Contains(d[0], "targets' machines c7g.xlarge V1 4 CPUs kernel 6.1 → c7g.xlarge V2 4 CPUs kernel 6.6") {
		t.Fatalf("diff %q", d)
	}
	if d := EnvironmentDiff(nil, m("V1", "6.1")); d != nil {
		t.Fatalf("an older run without an environment: %v", d)
	}

	base := runWith("before", map[string][]int64{"go": {100, 101, 102, 103, 104}}, false)
	run := runWith("after", map[string][]int64{"go": {150, 151, 152, 153, 154}}, false)
	base.Status.Environment, run.Status.Environment = m("V1", "6.1"), m("V2", "6.1")
	o, _ := OptionsFrom(nil)
	Apply(run, base, "default/before", o)
	cond := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed)
	if cond.Status != metav1.ConditionUnknown || cond.Reason != benchv1.ReasonEnvironmentChanged || !strings.Contains(cond.Message, "V1") {
		t.Fatalf("across machines: %+v", cond)
	}
	run.Status.Environment = m("V1", "6.1")
	Apply(run, base, "default/before", o)
	if c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionRegressed); c.Status != metav1.ConditionTrue {
		t.Fatalf("same machines: %+v", c)
	}
}
