package history

import (
	"cmp"
	"slices"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/plan"
)

// Figures of record, as named in the output and in --figures.
const (
	FigureP50      = "p50"
	FigureP99      = "p99"
	FigureCPU      = "cpuPerRequest" // the name compare uses for the same figure
	FigureCapacity = "capacity"
)

// Figures lists them in output order.
var Figures = []string{FigureP50, FigureP99, FigureCPU, FigureCapacity}

// unit of each figure; higherIsWorse says which direction is a regression.
var (
	unit          = map[string]string{FigureP50: "µs", FigureP99: "µs", FigureCPU: "µs", FigureCapacity: "req/s"}
	higherIsWorse = map[string]bool{FigureP50: true, FigureP99: true, FigureCPU: true, FigureCapacity: false}
)

// Key names a row: target × scenario × load point (0 for a capacity search's answer).
type Key struct {
	Target    string `json:"target"`
	Scenario  string `json:"scenario"`
	LoadPoint int32  `json:"loadPoint,omitempty"`
}

// Row is one row's figures of record in one run, by figure name, in the figure's unit (µs for
// the latencies and CPU per request, req/s for capacity): the form a BenchmarkSchedule's
// history keeps a run in once the run itself is deleted.
type Row struct {
	Key
	Values map[string]float64 `json:"values"`
}

// RunRows is figures(br) as rows in row order (target, scenario, load point).
func RunRows(br *benchv1.BenchmarkRun) []Row {
	var out []Row
	for k, v := range figures(br) {
		out = append(out, Row{Key: k, Values: v})
	}
	slices.SortFunc(out, func(a, b Row) int { return compareKeys(a.Key, b.Key) })
	return out
}

// Unit is a figure's unit; HigherIsWorse says whether a rise is a regression.
func Unit(figure string) string        { return unit[figure] }
func HigherIsWorse(figure string) bool { return higherIsWorse[figure] }

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	if c := strings.Compare(a.Scenario, b.Scenario); c != 0 {
		return c
	}
	return cmp.Compare(a.LoadPoint, b.LoadPoint)
}

// figures are one run's values of record, by row and figure. A row's latencies are its
// latency of record (the wire's where every repetition had a complete capture, else k6's),
// each the median over the repetitions; CPU per request is the target's median CPU over
// the median achieved rate (µs of one CPU per request); capacity is a finished search's
// answer. Rows at a capacity search's probing rates are left out: they differ run to run.
func figures(br *benchv1.BenchmarkRun) map[Key]map[string]float64 {
	out := map[Key]map[string]float64{}
	points := plan.LoadPoints(br.Spec.Load)
	for _, r := range br.Status.Results {
		if r.Repetitions == 0 || !slices.Contains(points, r.LoadPoint) {
			continue
		}
		k := Key{Target: r.Target, Scenario: r.Scenario, LoadPoint: r.LoadPoint}
		p50, p99 := r.P50Micros.Median, r.P99Micros.Median
		if r.LatencySource == benchv1.LatencyWire && r.Wire != nil {
			p50, p99 = r.Wire.P50Micros.Median, r.Wire.P99Micros.Median
		}
		f := map[string]float64{FigureP50: float64(p50), FigureP99: float64(p99)}
		if r.CPUMillicores != nil && r.CPUMillicores.Median > 0 && r.AchievedMilliRPS.Median > 0 {
			f[FigureCPU] = float64(r.CPUMillicores.Median) * 1e6 / float64(r.AchievedMilliRPS.Median)
		}
		out[k] = f
	}
	for _, s := range br.Status.Search {
		if s.Phase == benchv1.SearchDone && s.CapacityRPS > 0 {
			out[Key{Target: s.Target, Scenario: s.Scenario}] = map[string]float64{FigureCapacity: float64(s.CapacityRPS)}
		}
	}
	return out
}
