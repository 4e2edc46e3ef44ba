package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/specs"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

// runK6 is what a runner pod of the TestRun runs: the real k6, with the TestRun's arguments
// and environment and the ConfigMap's script and plan. It reports when the load starts
// (k6-operator's starter) and returns k6's exit code.
func (w *world) runK6(tr *unstructured.Unstructured, started chan<- time.Time) int32 {
	ctx := context.Background()
	cm := &corev1.ConfigMap{}
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: tr.GetNamespace(), Name: tr.GetName()}, cm); err != nil {
		return 107
	}
	dir, _ := os.MkdirTemp("", "fake-k6-runner-")
	defer os.RemoveAll(dir)
	// The runner pod mounts the ConfigMap; here its files go to dir.
	script, plan, summary := filepath.Join(dir, loadgen.ScriptName), filepath.Join(dir, specs.PlanKey), filepath.Join(dir, "summary.json")
	_ = os.WriteFile(script, []byte(cm.Data[loadgen.ScriptName]), 0o644)
	_ = os.WriteFile(plan, []byte(cm.Data[specs.PlanKey]), 0o644)
	pod := runnerPodName(tr, 1)
	argsText, _, _ := unstructured.NestedString(tr.Object, "spec", "arguments")
	argsText = strings.ReplaceAll(argsText, "$(GAUNTLET_RUNNER)", pod) // the kubelet's expansion
	args := append([]string{"run"}, strings.Fields(argsText)...)
	// Only the summary export is the test's own: the exact reference of the fidelity check.
	args = append(args, k6.Args(script, plan, summary)[1:]...)
	cmd := exec.Command(w.k6Bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "K6_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	env, _, _ := unstructured.NestedSlice(tr.Object, "spec", "runner", "env")
	for _, e := range env {
		m := e.(map[string]any)
		v, _ := m["value"].(string)
		if m["name"] == "PLAN" {
			v = plan // the mount's path in dir
		}
		if m["valueFrom"] != nil {
			v = pod // metadata.name, the only fieldRef the runners use
		}
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%s", m["name"], v))
	}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return 127
	}
	// The kubelet's cAdvisor reports the runner container's CPU while it runs.
	rp := runnerPod{namespace: tr.GetNamespace(), name: pod}
	w.mu.Lock()
	w.runnerPIDs[rp] = cmd.Process.Pid
	w.mu.Unlock()
	defer func() { w.mu.Lock(); delete(w.runnerPIDs, rp); w.mu.Unlock() }()
	var log strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := stderr.Read(buf)
		log.Write(buf[:n])
		if strings.Contains(log.String(), "gauntlet: load starts") {
			select {
			case started <- time.Now():
			default:
			}
		}
		if err != nil {
			break
		}
	}
	code := int32(0)
	if err := cmd.Wait(); err != nil {
		code = 1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = int32(ee.ExitCode())
		}
		fmt.Fprintf(os.Stderr, "k6 for %s exited %d:\n%s\n", tr.GetName(), code, log.String())
	}
	var p struct{ MeasureMs int64 }
	_ = json.Unmarshal([]byte(cm.Data[specs.PlanKey]), &p)
	if res, err := k6.ParseSummary(summary, time.Duration(p.MeasureMs)*time.Millisecond); err == nil {
		w.mu.Lock()
		w.summaries[tr.GetName()] = res
		w.mu.Unlock()
	}
	return code
}
