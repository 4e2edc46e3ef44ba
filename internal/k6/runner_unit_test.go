package k6

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

func TestArgs(t *testing.T) {
	got := Args("/d/bench.js", "/d/plan.json", "/d/summary.json")
	want := []string{"run", "--quiet", "--no-color", "--no-usage-report", "--address=",
		"--summary-export", "/d/summary.json", "--summary-trend-stats", "avg,min,med,max,p(50),p(90),p(95),p(99),p(99.9)",
		"--env", "PLAN=/d/plan.json", "/d/bench.js"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Args\n got %q\nwant %q", got, want)
	}
}

func TestK6EnvDropsK6Options(t *testing.T) {
	got := k6Env([]string{"PATH=/bin", "K6_NO_CONNECTION_REUSE=true", "GAUNTLET_RUNNER=2", "K6_VUS=9"})
	if !reflect.DeepEqual(got, []string{"PATH=/bin", "GAUNTLET_RUNNER=2"}) {
		t.Errorf("k6Env = %q", got)
	}
}

func TestLogWatcher(t *testing.T) {
	var out bytes.Buffer
	w := newLogWatcher(&out, "gauntlet: load starts")
	_, _ = w.Write([]byte("a\ntime=x msg=\"gauntlet: lo"))
	select {
	case <-w.started:
		t.Fatal("marker seen before its line was complete")
	default:
	}
	_, _ = w.Write([]byte("ad starts\" source=console\nb"))
	select {
	case <-w.started:
	default:
		t.Fatal("marker not seen")
	}
	if out.String() != "a\ntime=x msg=\"gauntlet: load starts\" source=console\nb" {
		t.Errorf("pass-through %q", out.String())
	}
	if tail := w.tail(); !strings.HasSuffix(tail, "source=console\nb") {
		t.Errorf("tail %q", tail)
	}
}

func TestMissingBinaryNamesTheInstallScript(t *testing.T) {
	t.Setenv(BinaryEnv, "")
	_, err := Binary(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "hack/k6.sh") {
		t.Errorf("Binary: %v", err)
	}
	fake := filepath.Join(t.TempDir(), "k6")
	_ = os.WriteFile(fake, []byte("#!/bin/sh\necho 'k6 v0.49.0 (go1.21)'\n"), 0o755)
	t.Setenv(BinaryEnv, fake)
	if _, err := Binary(""); err == nil || !strings.Contains(err.Error(), "hack/k6.sh") || !strings.Contains(err.Error(), "v0.49.0") {
		t.Errorf("wrong version: %v", err)
	}
	p, _ := workload.Build(workload.Spec{BaseURL: "http://127.0.0.1:1", Requests: []workload.Request{{Method: "GET", Path: "/", Weight: 1, ExpectStatus: 200}},
		Load: workload.Load{Model: workload.Closed, VUs: 1}, Measure: time.Second,
		Tags: workload.Tags{TestID: "t", Target: "t", Scenario: "s", LoadPoint: "1", Repetition: "1"}})
	_, err = Runner{Binary: filepath.Join(t.TempDir(), "nope")}.Run(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "hack/k6.sh") {
		t.Errorf("Run with a missing binary: %v", err)
	}
}
