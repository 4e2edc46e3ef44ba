package specs

import (
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

var dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func named(name string) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestObjectNames(t *testing.T) {
	long := strings.Repeat("a", 40)
	cases := []struct {
		name string
		got  string
		want string
	}{
		// Hashes are the first 10 hex digits of sha256 of the length-prefixed tuple, checked with
		// printf '6:target;5:bench;2:go;' | sha256sum.
		{"readable prefix and the tuple's hash", TargetName(named("bench"), "go"), "bench-go-9e7bd95c60"},
		{"too long: truncated prefix", TargetName(named(long), long), long + "-" + strings.Repeat("a", 11) + "-155be77047"},
		{"a run name with dots", TargetName(named("bench.v2"), "go"), "bench-v2-go-af1e918619"},
		{"a run name starting with a digit", TargetName(named("2024-run"), "go"), "g2024-run-go-134363ee8a"},
		{"a trial name with dots", TrialName(named("bench"), "go.ping.1000.r1"), "bench-go-ping-1000-r1-b2dd39f62f"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
			if len(c.got) > MaxNameLength || !dns1035.MatchString(c.got) {
				t.Errorf("%q is not a DNS-1035 label of at most 63 characters", c.got)
			}
		})
	}
}

// Names that join to the same text are still distinct, across runs and across kinds, and a
// name is the same on every call.
func TestObjectNamesAreInjective(t *testing.T) {
	pairs := []struct{ what, a, b string }{
		{"run a + target b-c vs run a-b + target c", TargetName(named("a"), "b-c"), TargetName(named("a-b"), "c")},
		{"run a.b vs run a-b", TargetName(named("a.b"), "go"), TargetName(named("a-b"), "go")},
		{"target pooler vs the run's Pooler", TargetName(named("bench"), "pooler"), PoolerName(named("bench"))},
		{"target schema vs the run's schema ConfigMap", TargetName(named("bench"), "schema"), SchemaName(named("bench"))},
		{"run a-db's target vs run a's Cluster", TargetName(named("a"), "db"), ClusterName(named("a"))},
		{"trial go-fast.ping vs go.fast-ping", TrialName(named("r"), "go-fast.ping.100.r1"), TrialName(named("r"), "go.fast-ping.100.r1")},
		{"run a + trial b-c... vs run a-b + trial c...", TrialName(named("a"), "b-c.ping.1.r1"), TrialName(named("a-b"), "c.ping.1.r1")},
		{"long names differing past the cut", TargetName(named(strings.Repeat("x", 70)), "go"), TargetName(named(strings.Repeat("x", 70)), "node")},
	}
	for _, p := range pairs {
		if p.a == p.b {
			t.Errorf("%s: both named %q", p.what, p.a)
		}
	}
	if TargetName(named("bench"), "go") != TargetName(named("bench"), "go") { //nolint:staticcheck // SA4000: two calls, one answer, is the property
		t.Error("names are not stable")
	}
	// A hyphen right at the cut must not end up doubled before the hash.
	if got := TargetName(named(strings.Repeat("y", 51)), "z-more"); strings.Contains(got, "--") {
		t.Errorf("doubled hyphen in %q", got)
	}
}

func TestDerivedNamesRespectTheirLimits(t *testing.T) {
	run := fixtureRun()
	run.Name = strings.Repeat("n", 60)
	for _, c := range []struct {
		what string
		got  string
		max  int
	}{
		{"cluster", ClusterName(run), 50},
		{"test run", TrialName(run, "go.ping.1000.r1"), 50},
		{"pooler", PoolerName(run), 63},
		{"schema", SchemaName(run), 63},
		{"target", TargetName(run, "go"), 63},
	} {
		if len(c.got) > c.max || !dns1035.MatchString(c.got) {
			t.Errorf("%s name %q: not a DNS-1035 label of at most %d characters", c.what, c.got, c.max)
		}
	}
}

func TestLabelValue(t *testing.T) {
	if got := LabelValue("bench.v2"); got != "bench.v2" {
		t.Errorf("short value changed: %q", got)
	}
	long := strings.Repeat("r", 62) + ".x"
	got := LabelValue(long)
	if len(got) != MaxNameLength || !strings.HasPrefix(got, strings.Repeat("r", 54)+"-") {
		t.Errorf("LabelValue(long) = %q", got)
	}
	if got == LabelValue(strings.Repeat("r", 62)+".y") {
		t.Error("distinct long values collide")
	}
}
