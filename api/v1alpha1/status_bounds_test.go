package v1alpha1

import (
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestClip(t *testing.T) {
	if got := Clip("short", 10); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	got := Clip(strings.Repeat("é", 100), 50) // 200 bytes of two-byte runes
	if len(got) > 50 || !utf8.ValidString(got) || !strings.HasSuffix(got, "... (200 bytes)") {
		t.Errorf("Clip = %q (%d bytes)", got, len(got))
	}
}

func TestBoundCutsEveryText(t *testing.T) {
	long := strings.Repeat("x", 5000)
	s := BenchmarkRunStatus{
		Headline:   long,
		Conditions: []metav1.Condition{{Type: ConditionReady, Message: long}},
		Targets:    []TargetStatus{{Name: "go", FailedChecks: make([]string, 25)}},
		Trials:     []Trial{{Name: "t", Message: long}},
		Results:    []ResultRow{{Message: long}},
	}
	for i := range s.Targets[0].FailedChecks {
		s.Targets[0].FailedChecks[i] = long
	}
	s.Bound()
	if len(s.Headline) > MaxMessageLength || len(s.Trials[0].Message) > MaxMessageLength || len(s.Results[0].Message) > MaxMessageLength {
		t.Errorf("messages not cut: %d %d %d", len(s.Headline), len(s.Trials[0].Message), len(s.Results[0].Message))
	}
	if len(s.Conditions[0].Message) > MaxConditionMessageLength {
		t.Errorf("condition message of %d bytes", len(s.Conditions[0].Message))
	}
	if fc := s.Targets[0].FailedChecks; len(fc) != MaxFailedChecks || len(fc[0]) > MaxFailedCheckLength {
		t.Errorf("failed checks: %d, first %d bytes", len(fc), len(fc[0]))
	}
	if !strings.HasSuffix(s.Trials[0].Message, "... (5000 bytes)") {
		t.Errorf("a cut message does not say how long it was: %q", s.Trials[0].Message[len(s.Trials[0].Message)-30:])
	}
}
