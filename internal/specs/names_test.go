package specs

import (
	"regexp"
	"strings"
	"testing"
)

var dns1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func TestObjectName(t *testing.T) {
	long := strings.Repeat("a", 40)
	cases := []struct {
		name  string
		parts []string
		want  string
	}{
		{"short names are joined as they are", []string{"bench", "go"}, "bench-go"},
		{"exactly 63 characters stay", []string{strings.Repeat("r", 59), "go1"}, strings.Repeat("r", 59) + "-go1"},
		// Hashes are the first 8 hex digits of sha256 of the joined name (checked with sha256sum).
		{"too long: truncated prefix and hash", []string{long, long}, long + "-" + strings.Repeat("a", 13) + "-ce374878"},
		{"a run name with dots", []string{"bench.v2", "go"}, "bench-v2-go-dfecd66d"},
		{"a run name starting with a digit", []string{"2024-run", "go"}, "g2024-run-go-39b0fb7f"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ObjectName(c.parts...)
			if got != c.want {
				t.Errorf("ObjectName(%q) = %q, want %q", c.parts, got, c.want)
			}
			if len(got) > MaxNameLength || !dns1035.MatchString(got) {
				t.Errorf("%q is not a DNS-1035 label of at most 63 characters", got)
			}
		})
	}
}

// Names that only differ past the cut stay distinct, and a name is the same on every call.
func TestObjectNameStableAndDistinct(t *testing.T) {
	prefix := strings.Repeat("x", 70)
	a, b := ObjectName(prefix, "go"), ObjectName(prefix, "node")
	if a == b {
		t.Errorf("distinct long names collide: %q", a)
	}
	if a != ObjectName(prefix, "go") {
		t.Error("ObjectName is not stable")
	}
	// A hyphen right at the cut must not end up doubled before the hash.
	if got := ObjectName(strings.Repeat("y", 53), "zz", "more"); strings.Contains(got, "--") {
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
		{"test run", TrialName(run, "go-ping-1000-r1"), 50},
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
