package local

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/transform"
)

func TestScaleLoad(t *testing.T) {
	spec := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Rates: []int32{50000, 10000, 20}}}
	if err := transform.ScaleLoad(&spec, 0.02); err != nil {
		t.Fatal(err)
	}
	if want := []int32{1000, 200, 1}; !slices.Equal(spec.Load.Rates, want) { // 0.4 rounds up to the floor of 1
		t.Errorf("rates %v, want %v", spec.Load.Rates, want)
	}
	searching := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Search: &benchv1.Search{Start: 100, MaxRate: 1_000_000}}}
	if err := transform.ScaleLoad(&searching, 0.02); err != nil || searching.Load.Search.Start != 2 || searching.Load.Search.MaxRate != 20000 {
		t.Errorf("search: %+v %v", searching.Load.Search, err)
	}
	closed := benchv1.BenchmarkRunSpec{Load: benchv1.Load{Model: benchv1.LoadModelClosed, Connections: []int32{10, 12}}}
	err := transform.ScaleLoad(&closed, 0.1)
	if err == nil || !strings.Contains(err.Error(), "spec.load.connections[0] = 10 and spec.load.connections[1] = 12 both to 1") {
		t.Errorf("colliding points: %v", err)
	}
	for _, f := range []float64{0, -1} {
		if err := transform.ScaleLoad(&spec, f); err == nil || !strings.Contains(err.Error(), "--scale") {
			t.Errorf("scale %v: %v", f, err)
		}
	}
	if transform.FormatScale(0.02) != "0.02" {
		t.Errorf("transform.FormatScale(0.02) = %s", transform.FormatScale(0.02))
	}
}

func TestMarkerWriterFindsASplitMarker(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "k6.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := newMarkerWriter(f, loadStartsMarker)
	_, _ = m.Write([]byte("time=... level=info msg=\"gauntlet: load "))
	select {
	case <-m.seen:
		t.Fatal("marker seen before it was complete")
	default:
	}
	_, _ = m.Write([]byte("starts\" source=console\n"))
	select {
	case <-m.seen:
	default:
		t.Fatal("marker split over two writes was missed")
	}
	data, _ := os.ReadFile(f.Name())
	if !bytes.Contains(data, []byte(loadStartsMarker)) {
		t.Error("the log file did not receive k6's output")
	}
}
