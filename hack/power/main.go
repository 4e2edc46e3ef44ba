// Command power measures how well a same-run comparison tells a change from none: it runs
// one document many times in the local mode, each run holding an A/A pair (go-nethttp against
// itself) and A/B pairs with a known slowdown (EXTRA_CPU_MICROS µs of CPU added to every
// request), and counts the verdicts. It also judges the old way, two separate runs: each
// run's baseline arm against the next run's candidate arm, measured minutes apart. It prints
// a Markdown table; docs/measurement.md quotes it with this command:
//
//	go run ./hack/power -runs 40 -gauntlet bin/gauntlet
//
// -pairing Duet loads each pair's arms at the same time instead of one after the other.
// -judge-reps N judges only each recorded run's first N repetitions, so one set of long
// runs also answers for fewer repetitions. -across DIR judges the old way against runs of
// the same document made at another time: each run's baseline arm against the candidate arm
// of every run in DIR, instead of the next run's.
// It first prints how far the host's steal moved each trial's figure, by how much was
// stolen; -leave-out-steal=false judges the recorded runs as if steal had not been read (no
// repetition left out for it).
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/compare"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
	"github.com/gauntlet-bench/gauntlet/internal/results"
	"github.com/gauntlet-bench/gauntlet/internal/units"
)

// arm is one pair of the document: its baseline target, its candidate and the slowdown.
type arm struct {
	name      string
	extraUS   int
	base, can string
}

func main() {
	var (
		runs, reps, rate int
		bin, root, out   string
		warmup, duration string
		extras           string
		minEffect, path  string
		pairing, metric  string
		leaveOutSteal    bool
		judgeReps        int
		across           string
	)
	flag.IntVar(&runs, "runs", 40, "runs of the document")
	flag.IntVar(&reps, "reps", 6, "repetitions of every trial")
	flag.IntVar(&rate, "rate", 400, "offered rate, req/s")
	flag.StringVar(&bin, "gauntlet", "bin/gauntlet", "the gauntlet binary")
	flag.StringVar(&root, "root", ".", "repository root")
	flag.StringVar(&out, "out", "results/power", "results folder")
	flag.StringVar(&warmup, "warmup", "1s", "warmup of each trial")
	flag.StringVar(&duration, "duration", "2s", "measured window of each trial")
	flag.StringVar(&extras, "extra", "0,6,3", "µs of CPU added per request for each pair's candidate (0: an A/A pair)")
	flag.StringVar(&minEffect, "min-effect", "0.02", "spec.baseline.minEffect")
	flag.StringVar(&path, "path", "", "a request path to load instead of the ping workload, e.g. /api/cpu/primes?n=20000 (about 1 ms of CPU)")
	flag.StringVar(&pairing, "pairing", "Interleaved", "spec.load.pairing: Interleaved (one arm after the other) or Duet (both at once)")
	flag.StringVar(&metric, "metric", "p50", "spec.baseline.metric the pairs are judged on: p50 ... p999 of the wire, or cpuPerRequest; a folder's recorded runs are judged again on it")
	flag.BoolVar(&leaveOutSteal, "leave-out-steal", true, "leave out the repetitions the hypervisor took (results.HostStolen), as gauntlet does; false judges as if steal had not been read")
	flag.IntVar(&judgeReps, "judge-reps", 0, "judge only the first N repetitions of every recorded run (0: all)")
	flag.StringVar(&across, "across", "", "a folder of runs of the same document made at another time; the old way pairs each run's baseline arm with each of its runs' candidates")
	flag.Parse()

	var arms []arm
	for i, e := range strings.Split(extras, ",") {
		var us int
		if _, err := fmt.Sscan(e, &us); err != nil {
			log.Fatalf("-extra: %q is not a number of µs", e)
		}
		arms = append(arms, arm{name: fmt.Sprintf("+%dµs", us), extraUS: us, base: fmt.Sprintf("a%d", i), can: fmt.Sprintf("b%d", i)})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		log.Fatal(err)
	}
	doc := filepath.Join(out, "power.yaml")
	if err := os.WriteFile(doc, []byte(document(arms, reps, rate, warmup, duration, minEffect, path, pairing, metric)), 0o644); err != nil {
		log.Fatal(err)
	}
	var done []*benchv1.BenchmarkRun
	for i := 0; i < runs; i++ {
		dir := filepath.Join(out, fmt.Sprintf("run-%03d", i))
		if _, err := os.Stat(filepath.Join(dir, "status.yaml")); err != nil { // resumable
			cmd := exec.Command(bin, "run", "--local", "-f", doc, "--root", root, "--out", dir)
			cmd.Stderr = os.Stderr
			_ = cmd.Run() // exit 3 (a Slower pair) is an answer, not an error
		}
		run, _, err := local.ReadRun(dir)
		if err != nil {
			log.Printf("run %d: %v", i, err)
			continue
		}
		done = append(done, run)
		log.Printf("run %d: %s", i, run.Status.Verdict)
	}
	var others []*benchv1.BenchmarkRun
	if across != "" {
		if others = readRuns(across); len(others) == 0 {
			log.Fatalf("-across: no runs in %s", across)
		}
	}
	if judgeReps > 0 {
		for _, run := range slices.Concat(done, others) {
			firstReps(run, judgeReps)
		}
	}
	fmt.Print(stealTable(done, metric))
	if !leaveOutSteal {
		for _, run := range done {
			for _, t := range run.Status.Trials {
				if t.Result != nil {
					t.Result.HostStealMillicores, t.Result.HostCPUs = 0, 0
				}
			}
		}
	}
	report(arms, done, others, minEffect, metric)
}

// readRuns reads the runs a power folder holds, in order.
func readRuns(dir string) []*benchv1.BenchmarkRun {
	var out []*benchv1.BenchmarkRun
	for i := 0; ; i++ {
		run, _, err := local.ReadRun(filepath.Join(dir, fmt.Sprintf("run-%03d", i)))
		if err != nil {
			return out
		}
		out = append(out, run)
	}
}

// firstReps keeps a run's first n repetitions, as if its document had asked for n.
func firstReps(run *benchv1.BenchmarkRun, n int) {
	run.Status.Trials = slices.DeleteFunc(run.Status.Trials, func(t benchv1.Trial) bool {
		return !t.Calibration && int(t.Repetition) > n
	})
	run.Spec.Load.Repetitions = int32(n)
}

// stealTable says how far the host's steal moved each trial's figure: its deviation from
// its target's median in the same run (log scale), by how much of the trial's CPUs' time
// was stolen.
func stealTable(runs []*benchv1.BenchmarkRun, metric string) string {
	bands := []struct {
		name   string
		upTo   int64 // per mille of the CPUs' time
		values []float64
	}{{"at most 0.5%", 5, nil}, {"0.5–2%", 20, nil}, {"2–5%", 50, nil}, {"5–10%", 100, nil}, {"10–20%", 200, nil}, {"over 20%", math.MaxInt64, nil}}
	unread := 0
	for _, run := range runs {
		byTarget := map[string][]float64{}
		for _, t := range run.Status.Trials {
			if v, ok := figure(t, metric); ok {
				byTarget[t.Target] = append(byTarget[t.Target], v)
			}
		}
		for _, t := range run.Status.Trials {
			v, ok := figure(t, metric)
			if !ok {
				continue
			}
			if t.Result.HostCPUs == 0 {
				unread++
				continue
			}
			permille := results.StealPermille(*t.Result)
			for i := range bands {
				if permille <= bands[i].upTo {
					bands[i].values = append(bands[i].values, v-medianOf(byTarget[t.Target]))
					break
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s of each trial against its target's median in the run (log scale), by the steal of its CPUs (%d trials did not read it); over %d%% is left out of comparisons that can spare it:\n\n",
		metric, unread, results.HostStealPercent)
	fmt.Fprintf(&b, "| steal, share of the trial's CPUs' time | trials | deviation (sd) | mean |\n|---|---|---|---|\n")
	for _, band := range bands {
		fmt.Fprintf(&b, "| %s | %d | %.1f%% | %+.1f%% |\n", band.name, len(band.values), 100*stdev(band.values), 100*mean(band.values))
	}
	return b.String() + "\n"
}

// figure is a target's trial's compared figure, as a comparison reads it, on a log scale.
func figure(t benchv1.Trial, metric string) (float64, bool) {
	if t.Calibration || t.Phase != benchv1.TrialSucceeded || t.Result == nil {
		return 0, false
	}
	v := compare.Figures([]benchv1.Measurement{*t.Result}, metric)
	if len(v) != 1 || v[0] <= 0 {
		return 0, false
	}
	return math.Log(float64(v[0])), true
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func stdev(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	m, sq := mean(v), 0.0
	for _, x := range v {
		sq += (x - m) * (x - m)
	}
	return math.Sqrt(sq / float64(len(v)-1))
}

func document(arms []arm, reps, rate int, warmup, duration, minEffect, path, pairing, metric string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: gauntlet.dev/v1alpha1\nkind: BenchmarkRun\nmetadata: {name: power}\nspec:\n  targets:\n")
	for _, a := range arms {
		fmt.Fprintf(&b, "  - {name: %s, preset: go-nethttp, workers: 1}\n", a.base)
		fmt.Fprintf(&b, "  - {name: %s, preset: go-nethttp, workers: 1, baselineTarget: %s, env: [{name: EXTRA_CPU_MICROS, value: \"%d\"}]}\n", a.can, a.base, a.extraUS)
	}
	if path != "" {
		fmt.Fprintf(&b, "  scenarios: [{name: ping, requests: [{path: %q}]}]\n", path)
	} else {
		fmt.Fprintf(&b, "  scenarios: [{name: ping, workload: ping}]\n")
	}
	fmt.Fprintf(&b, "  load: {model: Open, rates: [%d], warmup: %s, duration: %s, repetitions: %d, maxVUs: 100, pairing: %s}\n", rate, warmup, duration, reps, pairing)
	fmt.Fprintf(&b, "  baseline: {metric: %s, minEffect: %q}\n", metric, minEffect)
	return b.String()
}

// sample is a target's valid repetitions of the compared figure, as compare reads them.
func sample(run *benchv1.BenchmarkRun, target, metric string) []int64 {
	pts := plan.LoadPoints(run.Spec.Load)
	return compare.Sample(run, results.RowKey{Target: target, Scenario: "ping", Point: pts[0]}, metric)
}

// report prints the verdicts on each pair. The old way (separate runs) pairs each run's
// baseline arm with the next run's candidate, or with the candidate of every run of others
// (runs made at another time) where they are given.
func report(arms []arm, runs, others []*benchv1.BenchmarkRun, minEffect, metric string) {
	o, err := compare.OptionsFrom(&benchv1.Baseline{MinEffect: minEffect, Metric: metric})
	if err != nil {
		log.Fatal(err)
	}
	for _, run := range runs {
		compare.Apply(run, nil, "", o) // judged by this build from the recorded trials, on -metric
	}
	fmt.Printf("%d runs, minimum effect %s, %s\n\n", len(runs), minEffect, metric)
	fmt.Println("| pair | true shift (pooled) | Slower | Faster | NoChange | Inconclusive | median detects | ratio spread, same run (IQR) | ratio spread, separate runs (IQR) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, a := range arms {
		counts := map[benchv1.RegressionVerdict]int{}
		var same, separate []float64
		var detects []int64
		var poolBase, poolCan []int64
		for i, run := range runs {
			for _, r := range run.Status.Results {
				if r.Target == a.can && r.Baseline != nil {
					counts[r.Baseline.Verdict]++
					if r.Baseline.MinDetectablePPM != nil {
						detects = append(detects, *r.Baseline.MinDetectablePPM)
					}
				}
			}
			b, c := sample(run, a.base, metric), sample(run, a.can, metric)
			poolBase, poolCan = append(poolBase, b...), append(poolCan, c...)
			if len(b) > 0 && len(c) > 0 {
				same = append(same, ratio(b, c))
			}
			for _, other := range oldWay(runs, others, i) {
				if c2 := sample(other, a.can, metric); len(b) > 0 && len(c2) > 0 {
					separate = append(separate, ratio(b, c2))
				}
			}
		}
		pooled := compare.Judge(poolBase, poolCan, o.MinEffectPPM)
		slices.Sort(detects)
		md := "—"
		if len(detects) > 0 {
			md = units.FormatPPM(detects[len(detects)/2])
		}
		fmt.Printf("| %s | %s | %d | %d | %d | %d | %s | %.1f%% | %.1f%% |\n", a.name, units.FormatSignedPPM(pooled.ShiftPPM),
			counts[benchv1.VerdictSlower], counts[benchv1.VerdictFaster], counts[benchv1.VerdictNoChange], counts[benchv1.VerdictInconclusive],
			md, 100*iqr(same), 100*iqr(separate))
	}
}

// oldWay is the runs whose candidate arm run i's baseline arm is judged against the old way:
// every run of others (made at another time), or else the next run.
func oldWay(runs, others []*benchv1.BenchmarkRun, i int) []*benchv1.BenchmarkRun {
	switch {
	case len(others) > 0:
		return others
	case i+1 < len(runs):
		return runs[i+1 : i+2]
	}
	return nil
}

// ratio is the candidate's median over the baseline's, minus one.
func ratio(base, can []int64) float64 {
	return float64(median(can))/float64(median(base)) - 1
}

func median(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// iqr is the interquartile range of v (type 7 quantiles).
func iqr(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		lo := math.Floor(h)
		return s[int(lo)] + (h-lo)*(s[min(int(lo)+1, len(s)-1)]-s[int(lo)])
	}
	return q(0.75) - q(0.25)
}
