package k6

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a small target on 127.0.0.1 that records what it received: arrival times,
// paths, ids, connections, Connection: close requests and peak concurrency.
type recorder struct {
	srv *httptest.Server

	mu       sync.Mutex
	arrivals []time.Time
	paths    map[string]int
	order    []string // request keys in arrival order
	ids      map[int]int
	badBody  int
	phases   map[string]int // Gauntlet-Phase header values

	conns, closing, inFlight, peak atomic.Int64
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{paths: map[string]int{}, ids: map[int]int{}, phases: map[string]int{}}
	rec.srv = httptest.NewUnstartedServer(http.HandlerFunc(rec.serve))
	rec.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rec.conns.Add(1)
		}
	}
	rec.srv.Start() // httptest listens on 127.0.0.1
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) serve(w http.ResponseWriter, r *http.Request) {
	n := rec.inFlight.Add(1)
	defer rec.inFlight.Add(-1)
	for p := rec.peak.Load(); n > p && !rec.peak.CompareAndSwap(p, n); p = rec.peak.Load() {
	}
	if r.Close {
		rec.closing.Add(1)
	}
	rec.mu.Lock()
	rec.arrivals = append(rec.arrivals, time.Now())
	rec.phases[r.Header.Get("Gauntlet-Phase")]++
	key := r.Method + " " + r.URL.Path
	if id, ok := idIn(r.URL.Path); ok {
		rec.ids[id]++
		key = r.Method + " " + strings.Replace(r.URL.Path, strconv.Itoa(id), "{id}", 1)
	}
	rec.paths[key]++
	rec.order = append(rec.order, key)
	rec.mu.Unlock()

	status := http.StatusOK
	switch {
	case r.URL.Path == "/wrong":
		status = http.StatusInternalServerError
	case r.URL.Path == "/teapot":
		status = http.StatusTeapot
	case r.URL.Path == "/slow":
		time.Sleep(200 * time.Millisecond)
	case r.URL.Path == "/busy":
		time.Sleep(10 * time.Millisecond)
	case strings.HasSuffix(r.URL.Path, "/command"):
		var cmd struct{ Action string }
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&cmd) != nil || cmd.Action == "" {
			rec.mu.Lock()
			rec.badBody++
			rec.mu.Unlock()
			status = http.StatusBadRequest
		}
		time.Sleep(2 * time.Millisecond) // the contract's simulated hardware latency
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"ok":true}`))
}

// repeatShare is the share of consecutive arrivals that repeat the previous request.
func (rec *recorder) repeatShare() float64 {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	repeats := 0
	for i := 1; i < len(rec.order); i++ {
		if rec.order[i] == rec.order[i-1] {
			repeats++
		}
	}
	return float64(repeats) / float64(max(1, len(rec.order)-1))
}

// idIn finds a numeric path segment (the expanded {id}).
func idIn(path string) (int, bool) {
	for _, seg := range strings.Split(path, "/") {
		if id, err := strconv.Atoi(seg); err == nil {
			return id, true
		}
	}
	return 0, false
}

func (rec *recorder) total() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.arrivals)
}

// splitAt counts arrivals before and after an offset from the first arrival.
func (rec *recorder) splitAt(offset time.Duration) (before, after int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.arrivals) == 0 {
		return 0, 0
	}
	cut := rec.arrivals[0].Add(offset)
	for _, a := range rec.arrivals {
		if a.Before(cut) {
			before++
		} else {
			after++
		}
	}
	return before, after
}

// k6Binary installs k6 through the project's script when needed (the first time takes
// minutes) and returns it: these tests run the real thing.
func k6Binary(t *testing.T) string {
	t.Helper()
	wd, _ := os.Getwd()
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Fatalf("no go.mod above %s", wd)
		}
		root = parent
	}
	if out, err := exec.Command(filepath.Join(root, "hack", "k6.sh")).CombinedOutput(); err != nil {
		t.Fatalf("hack/k6.sh: %v\n%s", err, out)
	}
	bin, err := Binary(root)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
