package metrics

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/gauntlet-bench/gauntlet/internal/testenv"
	"github.com/gauntlet-bench/gauntlet/internal/testprom"
)

var (
	promURL  string // http://127.0.0.1:PORT
	repoRoot = testenv.Root()
)

// TestMain runs one real Prometheus for the package: the same queries the operator uses
// are tested against what real k6 runs (and remote-write pushes) put in it.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() { // the tests that need what the setup starts call testenv.Long
		os.Exit(m.Run())
	}
	os.Exit(runWithPrometheus(m))
}

func runWithPrometheus(m *testing.M) int {
	prom, err := testprom.Start(repoRoot)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer prom.Stop()
	promURL = prom.URL
	return m.Run()
}

func newTestReader(t *testing.T) *Reader {
	t.Helper()
	r, err := NewReader(promURL)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// series and sample keep the tests' literals short.
type (
	series = testprom.Series
	sample = testprom.Sample
)

// pushSeries sends the series to the Prometheus under test and fails on any refusal.
func pushSeries(t *testing.T, all []series) {
	t.Helper()
	if err := testprom.Push(promURL, all); err != nil {
		t.Fatal(err)
	}
}
