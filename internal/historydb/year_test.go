package historydb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/gauntlet-bench/gauntlet/internal/changepoint"
	"github.com/gauntlet-bench/gauntlet/internal/history"
)

// yearQuery is docs/history.md's Grafana query for one series, $__timeFilter written out.
const yearQuery = `SELECT r.scheduled_at AS "time", f.value_milli / 1000.0 AS "p99 µs"
FROM history.runs r
JOIN history.figures f ON f.run_id = r.id
WHERE r.namespace = $3 AND r.schedule = 'nightly'
  AND r.scheduled_at BETWEEN $1 AND $2
  AND f.target = 't07' AND f.scenario = 'ping' AND f.load_point = 200 AND f.figure = 'p99'
ORDER BY 1`

// TestYearOfNightlyRuns fills a store with a year of nightly runs of one schedule (365 runs
// × 20 targets × 3 scenarios × 3 load points × 4 figures: 262,800 figures) on a durable
// PostgreSQL, timing every Append, then times loading the year, the controller's analysis
// of it (history.Analyze, its options) and the Grafana query. One series steps up 20% ten
// runs from the end: the analysis of the loaded year must alert on it. It prints the
// figures of docs/history.md. About a minute of CPU, so only when asked:
// GAUNTLET_HISTORYDB_YEAR=1 go test ./internal/historydb -run TestYearOfNightlyRuns -v -timeout 30m
// GAUNTLET_HISTORYDB_URL=postgresql://... runs it on that database instead (the chart's, as
// docs/history.md reaches the lab's), in a namespace of its own so it can run again.
func TestYearOfNightlyRuns(t *testing.T) {
	if os.Getenv("GAUNTLET_HISTORYDB_YEAR") == "" {
		t.Skip("set GAUNTLET_HISTORYDB_YEAR=1: about a minute of CPU")
	}
	const runs, targets, stepAt = 365, 20, 355
	ctx := context.Background()
	s, conn, ns := yearStore(t)
	rng := rand.New(rand.NewPCG(1, 2))
	noise := func() float64 { return math.Exp(0.05 * rng.NormFloat64()) }
	appends := make([]time.Duration, runs)
	for i := range runs {
		r := Run{Namespace: ns, Schedule: "nightly", ScheduleUID: "uid-nightly-" + ns, Name: fmt.Sprintf("nightly-%03d", i),
			UID: fmt.Sprintf("uid-%s-%03d", ns, i), Time: base.Add(time.Duration(i) * 24 * time.Hour), Env: "nodes=n2-standard-8 k8s=1.33"}
		for tg := range targets {
			for _, sc := range []string{"lookup", "ping", "write"} {
				for _, lp := range []int32{100, 200, 400} {
					p99 := 3000 * noise()
					if tg == 7 && sc == "ping" && lp == 200 && i >= stepAt {
						p99 *= 1.2
					}
					r.Rows = append(r.Rows, history.Row{Key: history.Key{Target: fmt.Sprintf("t%02d", tg), Scenario: sc, LoadPoint: lp},
						Values: map[string]float64{history.FigureP50: math.Round(800 * noise()), history.FigureP99: math.Round(p99),
							history.FigureCPU: 120 * noise(), history.FigureCapacity: math.Round(2500 * noise())}})
				}
			}
		}
		start := time.Now()
		if added, err := s.Append(ctx, r); err != nil || !added {
			t.Fatalf("append %s: %v, %v", r.Name, added, err)
		}
		appends[i] = time.Since(start)
	}
	sorted := slices.Sorted(slices.Values(appends))
	var total time.Duration
	for _, d := range appends {
		total += d
	}
	var last30 time.Duration
	for _, d := range appends[runs-30:] {
		last30 += d
	}
	t.Logf("append, per run of %d figures: mean %s, median %s, max %s; mean of the last 30 runs %s",
		targets*9*4, (total / runs).Round(time.Microsecond), sorted[runs/2].Round(time.Microsecond),
		sorted[runs-1].Round(time.Microsecond), (last30 / 30).Round(time.Microsecond))
	if sorted[runs-1] >= time.Second {
		t.Errorf("an append took %s: the goal is under 1 s", sorted[runs-1])
	}

	if _, err := conn.Exec(ctx, "ANALYZE history.runs; ANALYZE history.figures"); err != nil {
		t.Fatal(err)
	}
	var size int64
	if err := conn.QueryRow(ctx, "SELECT pg_total_relation_size('history.runs') + pg_total_relation_size('history.figures')").Scan(&size); err != nil {
		t.Fatal(err)
	}
	t.Logf("store: %.1f MB, indexes included", float64(size)/1e6)

	start := time.Now()
	year, err := s.Load(ctx, ns, "nightly", base)
	loaded := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	figures := 0
	for _, r := range year {
		for _, row := range r.Rows {
			figures += len(row.Values)
		}
	}
	if len(year) != runs || figures != runs*targets*9*4 {
		t.Fatalf("loaded %d runs, %d figures, want %d, %d", len(year), figures, runs, runs*targets*9*4)
	}
	t.Logf("load a year (%d runs, %d figures): %s", len(year), figures, loaded.Round(time.Millisecond))

	hist := make([]history.Run, len(year))
	for i, r := range year {
		hist[i] = r.History()
	}
	start = time.Now()
	// The controller's options (recordHistory), without a triage floor.
	rep, err := history.Analyze(hist, history.Options{Detect: changepoint.Options{MinMagnitude: history.DefaultMinMagnitude}})
	analysed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("change-point analysis of the year (%d series × %d runs): %s; %d alerts", len(rep.Series), len(year), analysed.Round(time.Millisecond), rep.Alerts)
	i := slices.IndexFunc(rep.Series, func(s history.Series) bool {
		return s.Target == "t07" && s.Scenario == "ping" && s.LoadPoint == 200 && s.Figure == history.FigureP99
	})
	if i < 0 || rep.Series[i].Alert == nil || rep.Series[i].Alert.RunName != fmt.Sprintf("nightly-%03d", stepAt) {
		t.Errorf("the 20%% step of t07/ping@200 p99 at nightly-%03d is not alerted: %+v", stepAt, rep.Series[i])
	}

	start = time.Now()
	rows, err := conn.Query(ctx, yearQuery, base, base.Add(runs*24*time.Hour), ns)
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for rows.Next() {
		points++
	}
	if rows.Err() != nil || points != runs {
		t.Fatalf("Grafana's query: %d points, %v", points, rows.Err())
	}
	t.Logf("Grafana's query of one series over the year (%d points): %s", points, time.Since(start).Round(time.Microsecond))
	var plan []string
	prows, err := conn.Query(ctx, "EXPLAIN "+yearQuery, base, base.Add(runs*24*time.Hour), ns)
	if err != nil {
		t.Fatal(err)
	}
	for prows.Next() {
		var line string
		if err := prows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	t.Logf("its plan:\n%s", strings.Join(plan, "\n"))
}

// yearStore is the store the year test fills and a connection to it, with the namespace of
// its runs: a fresh local PostgreSQL, or GAUNTLET_HISTORYDB_URL's database.
func yearStore(t *testing.T) (*Store, *pgx.Conn, string) {
	url := os.Getenv("GAUNTLET_HISTORYDB_URL")
	if url == "" {
		s, conn, _ := startStore(t)
		return s, conn, "bench"
	}
	ctx := context.Background()
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(Redact(err.Error(), url))
	}
	t.Cleanup(s.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(Redact(err.Error(), url))
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	return s, conn, fmt.Sprintf("year-%d", time.Now().Unix())
}
