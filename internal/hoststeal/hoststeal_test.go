package hoststeal

import (
	"testing"

	"github.com/prometheus/procfs"
)

func TestWindowIsTheShareOfTheCPUsTimeTaken(t *testing.T) {
	at := func(steal0, idle0, steal1, idle1 float64) map[int64]procfs.CPUStat {
		return map[int64]procfs.CPUStat{
			0: {User: 10, Idle: idle0, Steal: steal0},
			1: {User: 10, Idle: idle1, Steal: steal1},
			2: {User: 99, Idle: 99, Steal: 50}, // not asked for
		}
	}
	first, err := Of(at(1, 100, 2, 100), []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	// One second later: CPU 0 lost 0.25 s to the hypervisor, CPU 1 nothing.
	last, err := Of(at(1.25, 100.75, 2, 101), []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Window(first, last)
	if !ok || got != (Taken{Millicores: 250, CPUs: 2}) {
		t.Fatalf("Window = %+v (ok %v), want 250m over 2 CPUs", got, ok)
	}
}

func TestWindowRefusesSamplesItCannotCompare(t *testing.T) {
	a := Sample{CPUs: []int{0}, Total: 10}
	for name, b := range map[string]Sample{
		"other CPUs":     {CPUs: []int{1}, Total: 11},
		"no time passed": {CPUs: []int{0}, Total: 10},
	} {
		if _, ok := Window(a, b); ok {
			t.Errorf("%s: Window ok, want not", name)
		}
	}
	if _, ok := Window(Sample{}, Sample{}); ok {
		t.Error("no CPUs: Window ok, want not")
	}
}

func TestOfNamesAMissingCPU(t *testing.T) {
	_, err := Of(map[int64]procfs.CPUStat{0: {}}, []int{0, 7})
	if err == nil || err.Error() != "/proc/stat has no line for CPU 7" {
		t.Fatalf("err = %v, want it to name CPU 7", err)
	}
}

func TestReadCoversEveryCPUOfThisMachine(t *testing.T) {
	s, err := Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CPUs) == 0 || s.Total <= 0 || s.Steal < 0 || s.Steal > s.Total {
		t.Fatalf("Read(nil) = %+v, want every CPU with a positive total and steal within it", s)
	}
}
