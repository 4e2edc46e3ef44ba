package transform

import (
	"fmt"
	"math"
	"strconv"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
)

// ScaleAnnotation records --scale on the BenchmarkRun written to status.yaml, whose spec
// then holds the scaled load points that were really offered.
const ScaleAnnotation = "gauntlet.dev/scale"

// ScaleLoad multiplies every rate (open model) or connection count (closed model), and a
// capacity search's start and maxRate, by f,
// rounding to the nearest integer and never below 1, so a seed written for a cluster fits
// a small machine. Two points that become equal are an error naming the field.
func ScaleLoad(spec *benchv1.BenchmarkRunSpec, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return fmt.Errorf("--scale: %v must be a positive number such as 0.02", f)
	}
	if f == 1 {
		return nil
	}
	scale := func(field string, points []int32) ([]int32, error) {
		out := make([]int32, len(points))
		from := map[int32]int{}
		for i, p := range points {
			v := math.Round(float64(p) * f)
			if v > math.MaxInt32 {
				return nil, fmt.Errorf("--scale %v: %s[%d] = %d becomes %.0f, beyond what the API accepts", f, field, i, p, v)
			}
			out[i] = max(1, int32(v))
			if j, dup := from[out[i]]; dup {
				return nil, fmt.Errorf("--scale %v maps %s[%d] = %d and %s[%d] = %d both to %d: use a larger scale",
					f, field, j, points[j], field, i, p, out[i])
			}
			from[out[i]] = i
		}
		return out, nil
	}
	var err error
	if spec.Load.Rates, err = scale("spec.load.rates", spec.Load.Rates); err != nil {
		return err
	}
	if spec.Load.Connections, err = scale("spec.load.connections", spec.Load.Connections); err != nil {
		return err
	}
	if s := spec.Load.Search; s != nil {
		// A search's first rate and ceiling scale with the rest of the load.
		start, err := scale("spec.load.search.start", []int32{s.Start})
		if err != nil {
			return err
		}
		ceiling, err := scale("spec.load.search.maxRate", []int32{s.MaxRate})
		if err != nil {
			return err
		}
		s.Start, s.MaxRate = start[0], ceiling[0]
	}
	return nil
}

// FormatScale is the annotation's value: the shortest decimal that reads back as f.
func FormatScale(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
