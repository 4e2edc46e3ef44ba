package k6

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gauntlet-bench/gauntlet/internal/cgroups"
	"github.com/gauntlet-bench/gauntlet/internal/cpuset"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
	"github.com/gauntlet-bench/gauntlet/loadgen"
)

// File names inside the run directory.
const (
	PlanFile    = "plan.json"
	SummaryFile = "summary.json"
)

// startMarker is what loadgen/bench.js's setup() logs as the load begins.
const startMarker = "gauntlet: load starts"

// Runner runs k6 locally.
type Runner struct {
	// Binary is the k6 executable (see Binary).
	Binary string
	// Dir receives the plan, the script and the summary export; empty means a temporary
	// directory, removed afterwards.
	Dir string
	// Output receives k6's stdout and stderr (its summary and logs); nil discards them.
	Output io.Writer
	// CPUs, when set, pins k6 to these CPUs (the local mode's generator side).
	CPUs []int
	// Cgroup, when set, holds k6 to the CPU and memory the spec gives its runners, as the
	// kubelet holds a runner pod (the local mode's limits).
	Cgroup *cgroups.Group
	// Script replaces loadgen/bench.js; only for measuring another version of the script
	// side by side (hack/bench-generator). Nil runs the embedded, reviewed script.
	Script []byte
}

// Args is the k6 command line for a script, plan and summary path. The REST API is
// off (--address=) so that several k6 processes can run side by side.
func Args(script, plan, summary string) []string {
	return []string{"run", "--quiet", "--no-color", "--no-usage-report", "--address=",
		"--summary-export", summary, "--summary-trend-stats", TrendStats,
		"--env", "PLAN=" + plan, script}
}

// Run runs one plan to its end and returns the measured window's figures. Cancelling ctx
// kills k6's whole process group.
func (r Runner) Run(ctx context.Context, p workload.Plan) (Result, error) {
	res, err := r.run(ctx, p)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// RunDuet runs a duet's plan (workload.Duet) to its end and returns each arm's figures, in
// the order of its arms. GeneratorCores is the one k6's, for all of them.
func (r Runner) RunDuet(ctx context.Context, p workload.Plan) ([]Result, error) {
	if len(p.Arms) < 2 {
		return nil, fmt.Errorf("k6 duet: the plan has %d arms, need at least 2", len(p.Arms))
	}
	return r.run(ctx, p)
}

func (r Runner) run(ctx context.Context, p workload.Plan) ([]Result, error) {
	if r.Binary == "" {
		return nil, errors.New("k6 binary not set: run hack/k6.sh and pass its path (see k6.Binary)")
	}
	// k6 runs in dir: every path it is given must not depend on the caller's directory.
	binary := r.Binary
	if !strings.ContainsRune(binary, '/') {
		if found, err := exec.LookPath(binary); err == nil {
			binary = found
		}
	}
	binary, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		return nil, err
	}
	if r.Dir == "" {
		tmp, err := os.MkdirTemp("", "gauntlet-k6-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	script, plan, summary := filepath.Join(dir, loadgen.ScriptName), filepath.Join(dir, PlanFile), filepath.Join(dir, SummaryFile)
	planJSON, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(plan, planJSON, 0o644); err != nil {
		return nil, err
	}
	code := loadgen.Script
	if r.Script != nil {
		code = r.Script
	}
	if err := os.WriteFile(script, code, 0o644); err != nil {
		return nil, err
	}
	_ = os.Remove(summary) // a stale export must not pass for this run's

	var out io.Writer = io.Discard
	if r.Output != nil {
		out = &lockedWriter{w: r.Output}
	}
	logs := newLogWatcher(out, startMarker)
	cmd := exec.CommandContext(ctx, binary, Args(script, plan, summary)...)
	cmd.Dir = dir
	cmd.Env = k6Env(os.Environ())
	cmd.Stdout = out
	cmd.Stderr = logs
	// Its own process group, so cancelling kills k6 and anything it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second

	if err := r.Cgroup.Start(cmd, func() error { return cpuset.Start(cmd, r.CPUs) }); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("k6 not found at %s: run hack/k6.sh to install k6 %s", binary, Version)
		}
		return nil, fmt.Errorf("start k6: %w", err)
	}
	done := make(chan struct{})
	cpu := make(chan window, 1)
	go func() { cpu <- sampleMeasureWindow(cmd.Process.Pid, logs.started, done, p.Warmup(), p.Measure()) }()
	waitErr := cmd.Wait()
	exitedAt := time.Now()
	close(done)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // nothing of the group outlives the run

	if ctx.Err() != nil {
		return nil, fmt.Errorf("k6 run stopped: %w", ctx.Err())
	}
	if waitErr != nil {
		return nil, fmt.Errorf("k6 run failed (%v): %s", waitErr, logs.tail())
	}
	res, err := parseSummaryFile(summary, p.Measure(), len(p.Arms))
	if err != nil {
		return nil, err
	}
	cores := (<-cpu).cores(cmd.ProcessState, exitedAt)
	for i := range res {
		res[i].GeneratorCores = cores
	}
	return res, nil
}

// k6Env drops K6_* variables: k6 reads options from them (K6_NO_CONNECTION_REUSE,
// K6_VUS, ...), which would silently change what the plan says.
func k6Env(env []string) []string {
	kept := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "K6_") {
			kept = append(kept, kv)
		}
	}
	return kept
}

// window is k6's CPU time at the start and end of the measured window.
type window struct {
	start, end       cpuSample
	hasStart, hasEnd bool
}

// cores is the mean CPU use over the window; when k6 ended just before the end sample,
// its CPU total at exit (which adds only the summary's few milliseconds) stands in.
func (w window) cores(exited *os.ProcessState, exitedAt time.Time) float64 {
	if !w.hasStart {
		return -1
	}
	if !w.hasEnd {
		if exited == nil {
			return -1
		}
		cpu := exited.UserTime() + exited.SystemTime()
		w.end = cpuSample{at: exitedAt, ticks: int64(cpu / (time.Second / userHZ))}
	}
	return meanCores(w.start, w.end)
}

// sampleMeasureWindow reads k6's CPU time as the measured window opens and as it closes,
// timed from the start marker; it gives up on a sample once k6 has ended.
func sampleMeasureWindow(pid int, started <-chan time.Time, done <-chan struct{}, warmup, measure time.Duration) window {
	var w window
	var t0 time.Time
	select {
	case t0 = <-started:
	case <-done:
		return w
	}
	sample := func(at time.Time) (cpuSample, bool) {
		select {
		case <-time.After(time.Until(at)):
		case <-done:
			return cpuSample{}, false
		}
		ticks, err := cpuTicks(pid)
		return cpuSample{at: time.Now(), ticks: ticks}, err == nil
	}
	if w.start, w.hasStart = sample(t0.Add(warmup)); w.hasStart {
		w.end, w.hasEnd = sample(t0.Add(warmup + measure))
	}
	return w
}
