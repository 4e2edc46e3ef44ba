// Command bench-generator measures the load generator itself: k6's CPU per request and how
// its latency tails drift as its cores fill, running loadgen/bench.js with the plan the local
// mode writes (ping scenario, open model) against the fastest target, k6 and the target
// pinned to different cores. It prints the figures parallelism: auto sizes runners from
// (internal/sizing). A measuring tool, not a test:
//
//	make bench-generator            # or: go run ./hack/bench-generator -h
//	go run ./hack/bench-generator -compare old-bench.js   # old vs current script, alternating
//	go run ./hack/bench-generator -compare a.js,b.js      # several scripts, rotating order
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/hack/internal/pin"
	"github.com/gauntlet-bench/gauntlet/internal/k6"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/loopback"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/preset"
	"github.com/gauntlet-bench/gauntlet/internal/workload"
)

type options struct {
	target             string
	workers            int
	rates              []int
	runs               int
	warmup, measure    time.Duration
	k6CPUs, targetCPUs string
	compare            string
	driftFactor        float64
	skipInstall        bool
}

func main() {
	var o options
	var rates string
	flag.StringVar(&o.target, "target", "go-nethttp", "preset to load (the fastest one: the generator must be the bottleneck)")
	flag.IntVar(&o.workers, "workers", 1, "WORKERS of the target")
	flag.StringVar(&rates, "rates", "250,500,1000,2000,3000,4000", "offered rates, req/s, comma-separated")
	flag.IntVar(&o.runs, "runs", 3, "runs of every rate (and script), alternating")
	flag.DurationVar(&o.warmup, "warmup", 3*time.Second, "warmup of every k6 run")
	flag.DurationVar(&o.measure, "measure", 10*time.Second, "measured window of every k6 run")
	flag.StringVar(&o.k6CPUs, "k6-cpus", "1", "CPUs for k6 (taskset list)")
	flag.StringVar(&o.targetCPUs, "target-cpus", "0", "CPUs for the target (taskset list)")
	flag.StringVar(&o.compare, "compare", "", "other bench.js versions, comma-separated (e.g. `git show REV:loadgen/bench.js`), run in rotating order with the current one")
	flag.Float64Var(&o.driftFactor, "drift", 2, "a p99 this many times the lightest rate's counts as moved")
	flag.BoolVar(&o.skipInstall, "skip-install", false, "use the target as already installed (a machine without its toolchain: hack/bench-bundle.sh)")
	flag.Parse()
	for _, s := range strings.Split(rates, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || r <= 0 {
			fmt.Fprintf(os.Stderr, "bench-generator: -rates: %q is not a positive integer\n", s)
			os.Exit(2)
		}
		o.rates = append(o.rates, r)
	}
	sort.Ints(o.rates)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-generator:", err)
		os.Exit(1)
	}
}

// script is one version of bench.js under measurement.
type script struct {
	name string
	code []byte // nil: the embedded loadgen/bench.js
}

// sample is one k6 run.
type sample struct {
	script      string
	rate, run   int
	res         k6.Result
	microsPerRq float64 // k6 CPU time per request, µs
	utilization float64 // k6's cores used / cores given
}

func run(o options) error {
	root, _ := os.Getwd()
	k6bin, err := k6.Binary(root)
	if err != nil {
		return err
	}
	p, err := preset.Load(filepath.Join(root, "targets", o.target))
	if err != nil {
		return err
	}
	ctx := context.Background()
	if !o.skipInstall {
		if err := local.Install(ctx, root, p); err != nil {
			return err
		}
	}
	tg, err := local.StartTarget(ctx, local.TargetOptions{Preset: p, Ports: loopback.PortRange{Lo: 17000, Hi: 17999}, Workers: o.workers})
	if err != nil {
		return err
	}
	defer func() { _ = tg.Stop(15 * time.Second) }() // a measuring tool: the target's exit is not a result
	if err := pin.Group(tg.Pid(), o.targetCPUs); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-generator-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	k6pinned, err := pin.Wrapper(dir, k6bin, o.k6CPUs)
	if err != nil {
		return err
	}
	k6Cores, err := countCPUs(o.k6CPUs)
	if err != nil {
		return fmt.Errorf("-k6-cpus: %w", err)
	}
	scripts := []script{{name: "current"}}
	if o.compare != "" {
		var others []script
		for _, path := range strings.Split(o.compare, ",") {
			code, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("-compare: %w", err)
			}
			others = append(others, script{name: filepath.Base(path), code: code})
		}
		scripts = append(others, scripts...)
	}
	fmt.Printf("k6 %s on CPUs %s (%d), %s (WORKERS=%d) on CPUs %s; %d runs, warmup %v, measured %v; %s\n",
		k6.Version, o.k6CPUs, k6Cores, o.target, o.workers, o.targetCPUs, o.runs, o.warmup, o.measure, time.Now().UTC().Format(time.RFC3339))

	var all []sample
	for r := 1; r <= o.runs; r++ {
		for _, rate := range o.rates {
			// Rotate which script goes first, so drift over a round hits each alike.
			order := make([]script, len(scripts))
			for i := range scripts {
				order[i] = scripts[(i+r-1)%len(scripts)]
			}
			for _, s := range order {
				res, err := measureOnce(ctx, o, k6pinned, tg.URL, rate, s.code)
				if err != nil {
					return fmt.Errorf("%s at %d/s: %w", s.name, rate, err)
				}
				smp := sample{script: s.name, rate: rate, run: r, res: res}
				if res.GeneratorCores > 0 && res.AchievedRate > 0 {
					smp.microsPerRq = res.GeneratorCores / res.AchievedRate * 1e6
					smp.utilization = res.GeneratorCores / float64(k6Cores)
				}
				all = append(all, smp)
				fmt.Fprintf(os.Stderr, "run %d %-12s %5d/s: achieved %.0f/s, dropped %d, k6 %.2f cores, %.0f µs CPU/request, p50 %d p99 %d µs\n",
					r, s.name, rate, res.AchievedRate, res.DroppedIterations, res.GeneratorCores, smp.microsPerRq, res.Latency.P50, res.Latency.P99)
			}
		}
	}
	report(o, scripts, all)
	return nil
}

func measureOnce(ctx context.Context, o options, k6bin, baseURL string, rate int, code []byte) (k6.Result, error) {
	spec := benchv1.BenchmarkRunSpec{
		Scenarios: []benchv1.Scenario{{Name: "ping", Workload: "ping"}},
		Load: benchv1.Load{Model: benchv1.LoadModelOpen, Rates: []int32{int32(rate)},
			Warmup: benchv1.Duration(o.warmup.String()), Duration: benchv1.Duration(o.measure.String())},
	}
	t := plan.Trial{Name: "bench", Target: o.target, Scenario: "ping", LoadPoint: int32(rate), Repetition: 1}
	p, err := plan.K6Plan(&spec, t, baseURL, workload.Tags{TestID: "bench-generator", Target: o.target,
		Scenario: "ping", LoadPoint: strconv.Itoa(rate), Repetition: "1"})
	if err != nil {
		return k6.Result{}, err
	}
	return k6.Runner{Binary: k6bin, Script: code}.Run(ctx, p)
}

// report prints the medians per script and rate, the side-by-side cost, and the figures
// the sizing rule reads.
func report(o options, scripts []script, all []sample) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "script\toffered/s\tachieved/s\tdropped\tk6 cores\tk6 busy\tCPU µs/req\tp50 µs\tp99 µs\tp99 drift\t")
	base := map[string]float64{}
	for _, s := range scripts {
		for _, rate := range o.rates {
			g := pick(all, s.name, rate)
			p99 := median(g, func(x sample) float64 { return float64(x.res.Latency.P99) })
			if _, ok := base[s.name]; !ok {
				base[s.name] = p99
			}
			var dropped int64
			for _, x := range g {
				dropped += x.res.DroppedIterations
			}
			fmt.Fprintf(w, "%s\t%d\t%.0f\t%d\t%.2f\t%.0f%%\t%.0f\t%.0f\t%.0f\t%.1fx\t\n", s.name, rate,
				median(g, func(x sample) float64 { return x.res.AchievedRate }), dropped,
				median(g, func(x sample) float64 { return x.res.GeneratorCores }),
				100*median(g, func(x sample) float64 { return x.utilization }),
				median(g, func(x sample) float64 { return x.microsPerRq }),
				median(g, func(x sample) float64 { return float64(x.res.Latency.P50) }), p99, p99/base[s.name])
		}
	}
	_ = w.Flush()
	fmt.Printf("medians of %d runs per row; p99 drift is the row's p99 over the lightest rate's\n", o.runs)

	// k6 has fixed costs (its metrics engine, the summary's bookkeeping) that dominate at low
	// rates on a slow machine: the slope between the lightest and the heaviest rate is the
	// cost of one more request.
	if len(o.rates) > 1 {
		fmt.Println("\nmarginal k6 CPU per request (slope of k6 cores over achieved req/s, lightest to heaviest rate):")
		lo, hi := o.rates[0], o.rates[len(o.rates)-1]
		for _, sc := range scripts {
			a, b := pick(all, sc.name, lo), pick(all, sc.name, hi)
			cores := func(x sample) float64 { return x.res.GeneratorCores }
			rate := func(x sample) float64 { return x.res.AchievedRate }
			if d := median(b, rate) - median(a, rate); d > 0 {
				fmt.Printf("  %s: %.0f µs\n", sc.name, (median(b, cores)-median(a, cores))/d*1e6)
			}
		}
	}

	if len(scripts) > 1 {
		fmt.Printf("\nk6 CPU µs per request, side by side (every run, same rate, rotating order), against %s:\n", scripts[0].name)
		for _, rate := range o.rates {
			a := pick(all, scripts[0].name, rate)
			ma := median(a, micros)
			fmt.Printf("  %5d/s  %s %s", rate, scripts[0].name, list(a))
			for _, sc := range scripts[1:] {
				b := pick(all, sc.name, rate)
				fmt.Printf("  |  %s %s %+.0f%%", sc.name, list(b), 100*(median(b, micros)-ma)/ma)
			}
			fmt.Println()
		}
	}

	// The sizing figures, from the current script: its cost where k6 kept the rate, and
	// the busiest k6 still had its p99 within driftFactor of the lightest load's.
	cur := scripts[len(scripts)-1].name
	var costs []float64
	held := 0.0
	for _, rate := range o.rates {
		g := pick(all, cur, rate)
		ok := true
		for _, x := range g {
			if x.res.DroppedIterations > 0 || x.res.AchievedRate < 0.99*float64(rate) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, x := range g {
			costs = append(costs, x.microsPerRq)
		}
		if median(g, func(x sample) float64 { return float64(x.res.Latency.P99) }) <= o.driftFactor*base[cur] {
			held = max(held, median(g, func(x sample) float64 { return x.utilization }))
		}
	}
	sort.Float64s(costs)
	fmt.Printf("\nsizing figures (%s script):\n", cur)
	if len(costs) > 0 {
		fmt.Printf("  k6 CPU per request: median %.0f µs (%.0f..%.0f) over %d runs that kept their rate\n",
			median1(costs), costs[0], costs[len(costs)-1], len(costs))
	}
	fmt.Printf("  busiest k6 with p99 within %.1fx of the lightest rate's: %.0f%% of its cores\n", o.driftFactor, 100*held)
}

func micros(x sample) float64 { return x.microsPerRq }

func pick(all []sample, name string, rate int) []sample {
	var out []sample
	for _, x := range all {
		if x.script == name && x.rate == rate {
			out = append(out, x)
		}
	}
	return out
}

func list(g []sample) string {
	parts := make([]string, len(g))
	for i, x := range g {
		parts[i] = strconv.FormatFloat(x.microsPerRq, 'f', 0, 64)
	}
	return strings.Join(parts, "/")
}

func median(g []sample, f func(sample) float64) float64 {
	v := make([]float64, len(g))
	for i, x := range g {
		v[i] = f(x)
	}
	sort.Float64s(v)
	return median1(v)
}

func median1(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// countCPUs counts the CPUs of a taskset list ("1", "0,2", "2-5").
func countCPUs(list string) (int, error) {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("%q is not a CPU list", list)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, fmt.Errorf("%q is not a CPU list", list)
			}
		}
		n += b - a + 1
	}
	return n, nil
}
