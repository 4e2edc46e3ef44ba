// Command modes prints one document's rows as the cluster and the local mode measured
// them, side by side: wire p50 and p99 (the latency of record), their ratios and validity,
// the achieved rate, the share of CFS periods in which the target's quota throttled it, and
// whether each row meets the agreement goal (p50 within 30%, p99 within 2x, the same
// validity). The two runs are status.yaml files or results folders: the lab tier keeps the
// cluster's as .cache/lab/applied/NAME.status.yaml beside the document it applied, which
// `gauntlet run --local` then runs here (docs/measurement.md, "One document, two modes").
//
//	go run ./hack/modes -cluster .cache/lab/applied/NAME.status.yaml -local DIR
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/local"
	"github.com/gauntlet-bench/gauntlet/internal/results"
)

func main() {
	cluster := flag.String("cluster", "", "the cluster's run: status.yaml or results folder")
	localRun := flag.String("local", "", "the local mode's run of the same document: status.yaml or results folder")
	flag.Parse()
	if *cluster == "" || *localRun == "" {
		fmt.Fprintln(os.Stderr, "usage: modes -cluster STATUS -local STATUS")
		os.Exit(2)
	}
	c, _, err := local.ReadRun(*cluster)
	if err == nil {
		var l *benchv1.BenchmarkRun
		if l, _, err = local.ReadRun(*localRun); err == nil {
			err = write(os.Stdout, c, l)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modes:", err)
		os.Exit(1)
	}
}

// rowKey names a row by what both modes share.
type rowKey struct {
	target, scenario string
	point            int32
}

// write prints the markdown table; a row one mode lacks is listed with a dash.
func write(w io.Writer, cluster, localRun *benchv1.BenchmarkRun) error {
	byKey := map[rowKey]benchv1.ResultRow{}
	for _, r := range localRun.Status.Results {
		byKey[rowKey{r.Target, r.Scenario, r.LoadPoint}] = r
	}
	fmt.Fprintf(w, "%s: cluster (wire) vs local (wire)\n\n", cluster.Name)
	fmt.Fprintln(w, "| row | p50 cluster | p50 local | local/cluster | p99 cluster | p99 local | local/cluster | req/s cluster | req/s local | throttled cluster | throttled local | valid cluster | valid local | goal |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
	for _, c := range cluster.Status.Results {
		k := rowKey{c.Target, c.Scenario, c.LoadPoint}
		l, ok := byKey[k]
		name := fmt.Sprintf("%s %s @ %d", c.Target, c.Scenario, c.LoadPoint)
		if !ok || c.Repetitions == 0 || l.Repetitions == 0 {
			fmt.Fprintf(w, "| %s | %s |\n", name, "— (not measured in both)")
			continue
		}
		cr, lr := results.Record(c), results.Record(l)
		p50, p99 := ratio(lr[0], cr[0]), ratio(lr[3], cr[3])
		goal := "meets"
		if why := misses(p50, p99, c, l); why != "" {
			goal = "misses: " + why
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name,
			results.FormatMicros(cr[0]), results.FormatMicros(lr[0]), fmtRatio(p50),
			results.FormatMicros(cr[3]), results.FormatMicros(lr[3]), fmtRatio(p99),
			fmtRate(c.AchievedMilliRPS.Median), fmtRate(l.AchievedMilliRPS.Median),
			throttled(cluster, k), throttled(localRun, k), validity(c), validity(l), goal)
	}
	return nil
}

// misses says which part of the agreement goal a row misses ("" when it meets it).
func misses(p50, p99 float64, c, l benchv1.ResultRow) string {
	var why []string
	if p50 < 1/1.3 || p50 > 1.3 {
		why = append(why, "p50 beyond 30%")
	}
	if p99 < 0.5 || p99 > 2 {
		why = append(why, "p99 beyond 2x")
	}
	if c.Valid != l.Valid {
		why = append(why, "validity differs")
	}
	if c.LatencySource != l.LatencySource {
		why = append(why, fmt.Sprintf("latency of record %s vs %s", c.LatencySource, l.LatencySource))
	}
	return strings.Join(why, ", ")
}

// throttled is the share of CFS periods in which the target ran out of quota, over the
// row's measured windows ("—" when no trial has CFS counters: no CPU limit, or not read).
func throttled(run *benchv1.BenchmarkRun, k rowKey) string {
	var periods, waited int64
	for _, t := range run.Status.Trials {
		if m := t.Result; m != nil && !t.Calibration && t.Target == k.target && t.Scenario == k.scenario && t.LoadPoint == k.point {
			periods, waited = periods+m.CPUPeriods, waited+m.CPUThrottledPeriods
		}
	}
	if periods == 0 {
		return "—"
	}
	return strconv.FormatFloat(100*float64(waited)/float64(periods), 'f', 1, 64) + "%"
}

func fmtRate(milli int64) string { return strconv.FormatFloat(float64(milli)/1000, 'f', 1, 64) }

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func fmtRatio(r float64) string { return strconv.FormatFloat(r, 'f', 2, 64) + "x" }

// validity is "yes", or "no" with the row's flags.
func validity(r benchv1.ResultRow) string {
	if r.Valid {
		return "yes"
	}
	return "no (" + strings.Join(r.Flags, ", ") + ")"
}
