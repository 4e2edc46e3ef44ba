// Command fidelity measures how much of the latency Gauntlet reports is the load generator's:
// for the fast targets at a few rates, it runs the local mode and prints, side by side, the
// latency on the wire (packet capture of the target's port), k6's own figures, the generator
// floor (k6 against the null responder), and what the status reports (source, flags). With
// -shared, k6 and the targets share every CPU (the placement before issue 15) for a
// before/after comparison. A measuring tool, not a test; it needs root for the capture:
//
//	make build && go run ./hack/fidelity [-rates 1000,2000] [-duration 10s] [-repetitions 1] [-shared]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
	"github.com/gauntlet-bench/gauntlet/internal/validation"
)

func main() {
	rates := flag.String("rates", "1000", "comma-separated arrival rates (req/s)")
	targets := flag.String("targets", "nginx,go-nethttp,cpp-epoll", "comma-separated presets")
	warmup := flag.Duration("warmup", 2*time.Second, "warmup")
	duration := flag.Duration("duration", 10*time.Second, "measured window")
	reps := flag.Int("repetitions", 1, "repetitions")
	shared := flag.Bool("shared", false, "do not pin: k6 and the targets share every CPU")
	keepAlive := flag.Bool("keepalive", true, "keep-alive")
	gauntlet := flag.String("gauntlet", "bin/gauntlet", "the CLI binary (its null-responder subcommand)")
	out := flag.String("out", "", "results folder (default: a temporary one)")
	flag.Parse()
	if err := run(*rates, *targets, *warmup, *duration, *reps, *shared, *keepAlive, *gauntlet, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fidelity:", err)
		os.Exit(1)
	}
}

func run(rateList, targetList string, warmup, duration time.Duration, reps int, shared, keepAlive bool, gauntlet, out string) error {
	root, _ := os.Getwd()
	self, err := filepath.Abs(gauntlet)
	if err != nil {
		return err
	}
	if _, err := os.Stat(self); err != nil {
		return fmt.Errorf("%s: %w (run make build)", gauntlet, err)
	}
	var targets, rates []string
	for _, p := range strings.Split(targetList, ",") {
		targets = append(targets, fmt.Sprintf("{name: %s, preset: %s}", p, p))
	}
	for _, r := range strings.Split(rateList, ",") {
		if _, err := strconv.Atoi(strings.TrimSpace(r)); err != nil {
			return fmt.Errorf("-rates: %q: %w", r, err)
		}
		rates = append(rates, strings.TrimSpace(r))
	}
	// The same path as `gauntlet run -f`: the CRD's schema, defaults and CEL rules.
	yaml := fmt.Sprintf(`apiVersion: gauntlet.dev/v1alpha1
kind: BenchmarkRun
metadata: {name: fidelity}
spec:
  targets: [%s]
  scenarios: [{name: ping, workload: ping}]
  load: {model: Open, rates: [%s], maxVUs: 100, warmup: %s, duration: %s, repetitions: %d, keepAlive: %v}
`, strings.Join(targets, ", "), strings.Join(rates, ", "), warmup, duration, reps, keepAlive)
	v, err := validation.New()
	if err != nil {
		return err
	}
	doc := v.Validate(context.Background(), []byte(yaml))
	if len(doc.Errors) > 0 {
		return doc.Errors.ToAggregate()
	}
	run := doc.Run
	k6bin, err := k6.Binary(root)
	if err != nil {
		return err
	}
	if out == "" {
		if out, err = os.MkdirTemp("", "gauntlet-fidelity-"); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run, runErr := local.Run(ctx, local.RunOptions{Run: run, Root: root, K6: k6bin, OutDir: out, Progress: os.Stderr,
		NullResponder: []string{self, "null-responder"}, SharedCPUs: shared})
	print(run)
	fmt.Printf("results: %s\n", out)
	return runErr
}

// print writes one line per row: wire, k6, floor, then what the status reports.
func print(run *benchv1.BenchmarkRun) {
	f := results.FormatMicros
	st := run.Status
	if p := st.Placement; p != nil {
		fmt.Printf("CPUs: %s\n", p.Message)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\trate\tn\twire p50\twire p99\twire p99.9\tk6 p50\tk6 p99\tk6 p99.9\tfloor p50\tfloor p99\tk6 CPU\tstatus: source\tp99 of record\tvalid / flags")
	for _, r := range st.Results {
		wire := []string{"-", "-", "-"}
		if w := r.Wire; w != nil {
			wire = []string{f(w.P50Micros.Median), f(w.P99Micros.Median), f(w.P999Micros.Median)}
		}
		floor := []string{"-", "-"}
		if fl := r.GeneratorFloor; fl != nil {
			floor = []string{f(fl.P50Micros), f(fl.P99Micros)}
		}
		valid := "valid"
		if !r.Valid {
			valid = "NO: " + strings.Join(r.Flags, ",")
		}
		fmt.Fprintf(tw, "%s\t%d/s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Target, r.LoadPoint, r.Repetitions,
			wire[0], wire[1], wire[2], f(r.P50Micros.Median), f(r.P99Micros.Median), f(r.P999Micros.Median),
			floor[0], floor[1], generatorCPU(st.Trials, r), r.LatencySource, f(results.Record(r)[3]), valid)
	}
	_ = tw.Flush()
}

// generatorCPU is k6's mean CPU over the row's trials, in cores.
func generatorCPU(trials []benchv1.Trial, r benchv1.ResultRow) string {
	var sum, n int64
	for _, t := range trials {
		if !t.Calibration && t.Target == r.Target && t.Scenario == r.Scenario && t.LoadPoint == r.LoadPoint && t.Result != nil {
			sum += t.Result.GeneratorCPUMillicores
			n++
		}
	}
	if n == 0 {
		return "-"
	}
	return units.FormatMillicores(sum / n)
}
